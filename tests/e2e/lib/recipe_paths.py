"""Where a catalog recipe lives in the repository, as the recipe pages name it:
recipes/[<family>/]<model>/<framework>/<target>/deploy.yaml (deploy-generic.yaml where the
target has provider variants), named by its last three folders as the catalog does
(src/recipes/catalog.cpp): "deepseek-v4-flash/vllm/agg-b200-agentic" is
recipes/deepseek-v4/deepseek-v4-flash/vllm/agg-b200-agentic/deploy.yaml.

    recipe_file("deepseek-v4.1-flash/sglang/disagg-gb200")   # .../deploy-generic.yaml
    recipe_dir(name)                                         # the Kustomize folder
    all_recipe_files()                                       # {name: file}, sorted
"""
import glob
import os

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
RECIPE_FILES = ("deploy.yaml", "deploy-generic.yaml")


def all_recipe_files(root=None):
    base = os.path.join(root or ROOT, "recipes")
    out = {}
    for name in RECIPE_FILES:
        for f in glob.glob(os.path.join(base, "**", name), recursive=True):
            parts = os.path.relpath(f, base).split(os.sep)
            if len(parts) not in (4, 5):
                continue
            out["/".join(parts[-4:-1])] = f
    return dict(sorted(out.items()))


def recipe_file(name, root=None):
    f = all_recipe_files(root).get(name)
    if f is None:
        raise KeyError("no recipe %s under %s/recipes" % (name, root or ROOT))
    return f


def recipe_dir(name, root=None):
    return os.path.dirname(recipe_file(name, root))
