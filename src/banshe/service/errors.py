"""The service's refusals: a Chinese `reason`, and the HTTP status the pages answer with."""

from __future__ import annotations


class ServiceError(Exception):
    """A refused request: `reason` is Chinese; nothing was changed."""

    status = 400

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


class TooMany(ServiceError):
    """Flood control (a seat's post rate or its characters a phase): try later."""

    status = 429
