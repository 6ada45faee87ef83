"""Makes scripts/ importable (peers, plot) and pins matplotlib to the Agg backend."""
import os
import sys
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")
SCRIPTS_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SCRIPTS_DIR))
