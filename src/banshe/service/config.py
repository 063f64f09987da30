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
    # issue 25: what one link, one client or one seat may hold or send (docs/deploy.md, 限额)
    sse_per_link: int = 4  # open live streams per link (per process)
    sse_per_game: int = 200  # open live streams per game (per process)
    posts_per_minute: int = 12  # a seat's posts and group messages: a burst of this many, then one per 60/N s
    post_chars_per_phase: int = 100_000  # a seat's characters in the thread and its groups per phase
    header_timeout: float = 10.0  # seconds to send a request's line and headers (not reset by trickling)
    body_timeout: float = 30.0  # seconds a request body may stall between two reads
    idle_timeout: float = 5.0  # seconds an idle keep-alive connection stays open
    connections_per_client: int = 64  # open connections per client address (not for a trusted proxy)

    @staticmethod
    def from_env() -> Settings:
        env = os.environ.get
        return Settings(
            database_url=env("BANSHE_DATABASE_URL", DEFAULT_DATABASE_URL),
            sse_max_seconds=_number("BANSHE_SSE_SECONDS", 300.0),
            trusted_proxies=env("BANSHE_TRUSTED_PROXIES", ""),
            session_hours=_number("BANSHE_SESSION_HOURS", auth.SESSION_LIFETIME / 3600),
            sse_per_link=int(_number("BANSHE_SSE_PER_LINK", 4, whole=True)),
            sse_per_game=int(_number("BANSHE_SSE_PER_GAME", 200, whole=True)),
            posts_per_minute=int(_number("BANSHE_POSTS_PER_MINUTE", 12, whole=True)),
            post_chars_per_phase=int(_number("BANSHE_POST_CHARS_PER_PHASE", 100_000, whole=True)),
            header_timeout=_number("BANSHE_HEADER_TIMEOUT", 10.0),
            body_timeout=_number("BANSHE_BODY_TIMEOUT", 30.0),
            idle_timeout=_number("BANSHE_IDLE_TIMEOUT", 5.0),
            connections_per_client=int(_number("BANSHE_CONNECTIONS_PER_CLIENT", 64, whole=True)),
        )


def _number(name: str, default: float, whole: bool = False) -> float:
    """A positive number from the environment (a clear error naming the variable otherwise)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise ValueError(f"环境变量 {name} 应为{'正整数' if whole else '正数'}：{raw[:20]}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise ValueError(f"环境变量 {name} 应为{'正整数' if whole else '正数'}：{raw[:20]}")
    return value
