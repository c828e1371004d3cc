"""Each catalog recipe, applied with `kubectl apply -k` to a simulated cluster that fits
it, reaches Ready through the recipe page's own commands. Shared by the
check_operator_recipes_<profile>.py files (one per profile, so ctest -j runs them in
parallel)."""
import sys

from oplib import RECIPE_PROFILES, OperatorEnv, condition


def run(profile):
    recipes = sorted(r for r, p in RECIPE_PROFILES.items() if p == profile)
    assert recipes, profile
    with OperatorEnv(profile=profile, local=True) as env:
        for i, recipe in enumerate(recipes):
            ns = "r%d" % i
            name = env.apply_recipe(recipe, ns)
            env.wait_ready(name, ns)
            svc = env.get("svc", name + "-frontend", ns)
            assert 8000 in [p["port"] for p in svc["spec"]["ports"]], (recipe, svc["spec"]["ports"])
            d = env.dgd(name, ns)
            assert condition(d, "Ready")["status"] == "True"
            assert d["status"]["observedGeneration"] == d["metadata"]["generation"]
            sys.stdout.write("%s: Ready\n" % recipe)
            # Free the GPUs for the next recipe.
            env.kubectl("delete", "dgd", name, "-n", ns, "--wait=true", "--timeout=120s", timeout=180)
            env.kubectl("wait", "--for=delete", "pod", "-l", "nvidia.com/dynamo-graph-deployment-name=" + name,
                        "-n", ns, "--timeout=120s", timeout=180)
    print("ok")
