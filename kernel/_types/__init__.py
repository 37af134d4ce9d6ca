"""The value types of :mod:`talaria.types`, one module per subject, each imported on first use.

Python 3.11 builds every dataclass at import (see :mod:`talaria._values`), so a command
that never touches, say, channel messages never pays for building them.
"""
