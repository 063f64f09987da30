"""感染 2.0: 先知、女巫、守卫、长老、猎人、教士、爱神、穆图、该隐 + 村民, 10-40 players (seed 003)."""

from .rules import GANRAN
from .service_policy import THREAD_POLICY  # the director service's thread policy

__all__ = ["GANRAN", "THREAD_POLICY"]
