"""CTest's entry to the Python module's tests: pytest on this folder.

Fails, saying why, when pytest is missing (tools/setup.sh installs
python3-pytest): a test run without pytest must not pass silently.
"""

import pathlib
import sys

try:
    import pytest
except ImportError:
    print("FAILED: pytest is missing for " + sys.executable +
          " (apt-get install python3-pytest, or run tools/setup.sh)",
          file=sys.stderr)
    sys.exit(1)

here = pathlib.Path(__file__).resolve().parent
# No cache folder in the source tree; -rs lists skipped tests and why.
sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider", str(here)] +
                     sys.argv[1:]))
