"""品茗 (M196): 14 players, 预女猎白 + 4民 4狼 + 混血儿 + 病娇, 屠边, 拍刀 (seed 002)."""

from .rules import PINMING
from .service_policy import THREAD_POLICY  # the director service's thread policy

__all__ = ["PINMING", "THREAD_POLICY"]
