"""Makes scripts/ importable (peers, plot, ncu_profile, fa_schema, peer_backends), pins matplotlib
to the Agg backend, and hands the tests fa-bench's own schema.

The scripts keep no copy of fa-bench's CSV columns, kernel order or range names: they ask the
binary (`fa-bench --schema`), and so do these tests. fa-bench is $FA_BENCH (CTest sets it to the
binary it built) or build/fa-bench; without one the tests that need it fail and say so.
"""
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
SCRIPTS_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SCRIPTS_DIR))

import fa_schema  # noqa: E402


def live_schema() -> fa_schema.Schema:
    """fa-bench's --schema, or a test failure that says how to provide the binary."""
    try:
        return fa_schema.load()
    except fa_schema.SchemaError as error:
        pytest.fail(f"these tests read the built fa-bench's --schema: {error}")


@pytest.fixture(scope="session")
def schema() -> fa_schema.Schema:
    return live_schema()
