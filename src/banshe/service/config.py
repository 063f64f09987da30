"""The service's settings (environment variables, see docs/service.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from . import auth

DEFAULT_DATABASE_URL = "sqlite:///banshe.sqlite3"


@dataclass
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    sse_max_seconds: float = 300.0
    start_scheduler: bool = True
    scheduler_interval: float = 1.0
    trusted_proxies: str = ""  # reverse proxies whose X-Forwarded-For / -Proto are believed
    session_hours: float = auth.SESSION_LIFETIME / 3600
    login_failures_per_account: int = 10  # per 15 minutes
    login_failures_per_client: int = 30
    hash_slots: int = 4  # concurrent argon2 hashes (64 MiB each)

    @staticmethod
    def from_env() -> Settings:
        return Settings(
            database_url=os.environ.get("BANSHE_DATABASE_URL", DEFAULT_DATABASE_URL),
            sse_max_seconds=float(os.environ.get("BANSHE_SSE_SECONDS", "300")),
            trusted_proxies=os.environ.get("BANSHE_TRUSTED_PROXIES", ""),
            session_hours=float(os.environ.get("BANSHE_SESSION_HOURS", str(auth.SESSION_LIFETIME / 3600))),
        )
