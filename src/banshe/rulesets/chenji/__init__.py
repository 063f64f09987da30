"""沉寂与取酒 V1.5 (沉取): 20-30 characters, 特权/普通身份, 五狼, 吹笛者, 丘比特 (seed 000)."""

from .rules import CHENJI, is_allowed_mad_post
from .service_policy import THREAD_POLICY  # the director service's thread policy

__all__ = ["CHENJI", "is_allowed_mad_post", "THREAD_POLICY"]
