"""Talaria provider plugin for Nebius AI Studio (an OpenAI-compatible endpoint)."""

from __future__ import annotations

__version__ = "0.1.0"
