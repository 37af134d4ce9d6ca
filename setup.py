"""Packaging glue that pyproject.toml cannot express.

The import package ``talaria`` lives in ``kernel/``. The bundled plugins, skills and MCP
presets live at the top of the repository; a wheel ships them inside the package as
``talaria/_bundled/{plugins,skills,optional-mcps}`` so that a plain, non-editable
``pip install .`` has them. (An editable install finds them in the checkout instead.)
"""

import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
BUNDLED = ("plugins", "skills", "optional-mcps")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")


class BuildWithBundled(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / "talaria" / "_bundled"
        for name in BUNDLED:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, target / name, ignore=IGNORED, dirs_exist_ok=True)


setup(
    packages=["talaria"] + [f"talaria.{p}" for p in find_packages("kernel")],
    package_dir={"talaria": "kernel"},
    cmdclass={"build_py": BuildWithBundled},
)
