"""kgforge's training recipe for its own extraction model (kgforge-extract).

Commands (python -m kgtrain --help): prepare, train, export, evaluate.
Nothing here is imported by kgforge or needed to set it up; what a run
produces (a LoRA adapter and its manifest) is committed under
models/kgforge-extract and merged into a GGUF by scripts/merge_adapter.py.
"""

import os

# The repository's root: kgtrain lives in training/kgtrain.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
