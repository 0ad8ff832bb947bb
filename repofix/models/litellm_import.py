"""The one place LiteLLM is imported (lazily: it takes seconds), configured to work offline.

A module of its own so that both the LiteLLM model and token counting can use it without importing
each other."""

from __future__ import annotations

import os
from typing import Any


def import_litellm() -> Any:
    """LiteLLM, configured to work offline. Call only where a model is really used."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners on every error
    return litellm
