"""Sealing a secret the service must keep (a forum game's director password, issue 23).

The stored form is `v1.` + base64url(nonce ‖ ciphertext ‖ tag): HMAC-SHA256 in counter mode as
the key stream, encrypt-then-MAC with a separate HMAC key; both keys derived from the server's
secret (the `settings` table) or, when set, `BANSHE_FORUM_KEY` — then a copy of the database
alone does not open it. A sealed value never appears on a page, in a log or an export.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets

KEY_ENV = "BANSHE_FORUM_KEY"
_NONCE = 16
_TAG = 32


class SealError(Exception):
    """A sealed value that does not open with this server's key."""


def _keys(secret: str) -> tuple[bytes, bytes]:
    root = (os.environ.get(KEY_ENV) or secret).encode()
    return (
        hmac.new(root, b"banshe seal: stream", hashlib.sha256).digest(),
        hmac.new(root, b"banshe seal: tag", hashlib.sha256).digest(),
    )


def _stream(key: bytes, nonce: bytes, size: int) -> bytes:
    out = bytearray()
    counter = 0
    while len(out) < size:
        out += hmac.new(key, nonce + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1
    return bytes(out[:size])


def seal(secret: str, text: str) -> str:
    stream_key, tag_key = _keys(secret)
    nonce = secrets.token_bytes(_NONCE)
    plain = text.encode("utf-8")
    cipher = bytes(a ^ b for a, b in zip(plain, _stream(stream_key, nonce, len(plain)), strict=True))
    tag = hmac.new(tag_key, nonce + cipher, hashlib.sha256).digest()
    return "v1." + base64.urlsafe_b64encode(nonce + cipher + tag).decode("ascii")


def unseal(secret: str, sealed: str) -> str:
    stream_key, tag_key = _keys(secret)
    try:
        raw = base64.urlsafe_b64decode(sealed.removeprefix("v1.").encode("ascii"))
    except (ValueError, UnicodeError):
        raise SealError("无法读取保存的密码") from None
    if not sealed.startswith("v1.") or len(raw) < _NONCE + _TAG:
        raise SealError("无法读取保存的密码")
    nonce, cipher, tag = raw[:_NONCE], raw[_NONCE:-_TAG], raw[-_TAG:]
    if not hmac.compare_digest(tag, hmac.new(tag_key, nonce + cipher, hashlib.sha256).digest()):
        raise SealError("保存的论坛密码无法用本服务器的密钥打开（密钥变了？请重新填写密码）")
    plain = bytes(a ^ b for a, b in zip(cipher, _stream(stream_key, nonce, len(cipher)), strict=True))
    return plain.decode("utf-8")
