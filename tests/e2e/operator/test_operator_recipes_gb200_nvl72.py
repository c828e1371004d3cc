"""The catalog recipes that fit the gb200-nvl72 profile reach Ready (see recipes_ready.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recipes_ready import run  # noqa: E402

if __name__ == "__main__":
    run("gb200-nvl72")
