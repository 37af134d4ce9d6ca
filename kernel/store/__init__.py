"""The durable session store (DESIGN §4–5): interface, SQLite backend, owner identity and
the lease keeper.

Kernel-internal (``talaria.store``); plugins reach the store through ``ToolContext.store`` /
``Services.store`` and only call its read methods.

Typical turn::

    store = SqliteStore(home / "state.db")
    await store.open()
    adm, new = await store.admit(principal, key, request_id, {"text": text})
    async with LeaseKeeper(store, key, current_owner(), task=asyncio.current_task()) as lease:
        await store.start_admission(adm.id, lease.owner)
        await store.append_messages(session_id, [msg], fence=lease)
        await store.finish_admission(adm.id, "completed")
"""

from __future__ import annotations

from pathlib import Path

from .base import (
    ADMISSION_STATUSES,
    DELIVERY_STATUSES,
    Admission,
    Delivery,
    Lease,
    SearchHit,
    SessionRow,
    SessionStore,
    StoredMessage,
    UsageRow,
)
from .lease import LeaseInterrupted, LeaseKeeper, LeaseWaitTimeout
from .owner import current_owner, owner_alive
from .schema import SCHEMA_VERSION
from .sqlite import SqliteStore

__all__ = [
    "ADMISSION_STATUSES",
    "DELIVERY_STATUSES",
    "SCHEMA_VERSION",
    "Admission",
    "Delivery",
    "Lease",
    "LeaseInterrupted",
    "LeaseKeeper",
    "LeaseWaitTimeout",
    "SearchHit",
    "SessionRow",
    "SessionStore",
    "SqliteStore",
    "StoredMessage",
    "UsageRow",
    "current_owner",
    "default_store_path",
    "owner_alive",
]


def default_store_path(home: Path | None = None) -> Path:
    """``<home>/state.db``; ``home`` defaults to ``$TALARIA_HOME``."""
    from ..paths import talaria_home

    return (Path(home) if home is not None else talaria_home()) / "state.db"
