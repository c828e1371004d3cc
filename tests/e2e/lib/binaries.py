"""Where the tests find the project's binaries: the path in an environment variable
(ctest sets KUBE_SIM, DGDCTL, DGD_OPERATOR), else the default build directory."""
import os

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def find_binary(env, relpath):
    """The binary named by $env if it exists, else <root>/build/<relpath>."""
    p = os.environ.get(env)
    if p and os.path.exists(p):
        return p
    p = os.path.join(ROOT, "build", relpath)
    if os.path.exists(p):
        return p
    raise RuntimeError("%s not found (looked at $%s and %s): set %s" % (os.path.basename(relpath), env, p, env))
