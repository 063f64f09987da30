"""Director accounts (argon2 hashes), sessions, and CSRF tokens."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from . import edge
from .models import Director, Setting, WebSession

_HASHER = PasswordHasher()
SESSION_COOKIE = "banshe_session"
SESSION_LIFETIME = 14 * 24 * 3600  # unused this long, a session ends; each use renews it
RENEW_AFTER = 300  # write the renewal at most every five minutes
MAX_PASSWORD = 1024


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def verify_password(stored: str, password: str) -> bool:
    try:
        return _HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def create_director(s: Session, username: str, password: str) -> Director:
    username = username.strip()
    if not username or len(username) > 64:
        raise ValueError("用户名不能为空，且不超过64个字符")
    if len(password) < 8:
        raise ValueError("密码至少需要8个字符")
    if s.scalar(select(Director).where(Director.username == username)) is not None:
        raise ValueError(f"用户名“{username}”已经存在")
    director = Director(username=username, password_hash=hash_password(password), created_at=time.time())
    s.add(director)
    s.flush()
    return director


def set_password(s: Session, username: str, password: str) -> Director:
    director = s.scalar(select(Director).where(Director.username == username))
    if director is None:
        raise ValueError(f"没有导演账号“{username}”")
    if len(password) < 8:
        raise ValueError("密码至少需要8个字符")
    director.password_hash = hash_password(password)
    # a new password ends every session opened with the old one
    s.execute(delete(WebSession).where(WebSession.director_id == director.id))
    return director


def login(s: Session, username: str, password: str, now: float | None = None) -> WebSession | None:
    if len(password) > MAX_PASSWORD or len(username) > 64:
        return None
    director = s.scalar(select(Director).where(Director.username == username.strip()))
    if director is None:
        _HASHER.hash(password)  # same work either way
        return None
    if not verify_password(director.password_hash, password):
        return None
    now = time.time() if now is None else now
    session = WebSession(
        token=secrets.token_urlsafe(32),
        director_id=director.id,
        csrf=secrets.token_urlsafe(24),
        created_at=now,
        last_used_at=now,
    )
    s.add(session)
    s.flush()
    return session


def session_of(
    s: Session, token: str | None, now: float | None = None, lifetime: float = SESSION_LIFETIME
) -> WebSession | None:
    """The live session for `token`, renewed (the caller commits); an expired one is deleted."""
    if not token or len(token) > 64:
        return None
    ws = s.get(WebSession, token)
    if ws is None:
        return None
    now = time.time() if now is None else now
    last = ws.last_used_at if ws.last_used_at is not None else ws.created_at
    if now - last > lifetime:
        s.delete(ws)
        s.commit()
        return None
    if now - last > RENEW_AFTER:
        ws.last_used_at = now
        s.commit()
    return ws


def secret_key(s: Session) -> str:
    """The server's HMAC key, made on first use and kept in the database."""
    row = s.get(Setting, "secret_key")
    if row is None:
        row = Setting(key="secret_key", value=secrets.token_hex(32))
        s.add(row)
        s.commit()
    return row.value


def player_csrf(key: str, token: str) -> str:
    return hmac.new(key.encode(), f"player:{token}".encode(), hashlib.sha256).hexdigest()[:32]


def same(a: str | None, b: str) -> bool:
    """A token the request sent equals ours (compared as bytes: any characters, never a 500)."""
    return edge.same(a, b)
