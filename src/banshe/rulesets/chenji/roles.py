"""沉寂与取酒 V1.5 — identity ids, camps and the deal (seed `000_b72e015fab06684e.txt`, 身份阵营).

The identities themselves (name, camp, lives, skills, charges) are `Role`s in `rules.py`'s `ROLES`.
"""

from __future__ import annotations

import random

# 特权身份
SEER, WITCH, ELDER, GUARD = "seer", "witch", "elder", "guard"
# 普通身份 (10, six drawn per game)
HUNTER, IDIOT, SILENT, MAGICIAN, PRINCESS = "hunter", "idiot", "silent", "magician", "princess"
SLANDERER, SCAPEGOAT, CONFESSOR, MARTYR, ASSASSIN = "slanderer", "scapegoat", "confessor", "martyr", "assassin"
# 良民 / 乱民
CITIZEN, REBEL = "citizen", "rebel"
# 狼人
WHITE_WOLF, ALPHA, BLACK_WOLF, ENVOY, NUN = "white_wolf", "alpha", "black_wolf", "envoy", "nun"
PIPER, CUPID = "piper", "cupid"

ROLE_ALIASES = {"爱神": CUPID, "使者": ENVOY, "吹笛": PIPER}

PRIVILEGED = (SEER, WITCH, ELDER, GUARD)
ORDINARY = (HUNTER, IDIOT, SILENT, MAGICIAN, PRINCESS, SLANDERER, SCAPEGOAT, CONFESSOR, MARTYR, ASSASSIN)
WOLVES = (WHITE_WOLF, ALPHA, BLACK_WOLF, ENVOY, NUN)
UNIQUE = (*PRIVILEGED, *ORDINARY, *WOLVES, PIPER, CUPID)
ALL_ROLES = (*PRIVILEGED, *ORDINARY, CITIZEN, REBEL, *WOLVES, PIPER, CUPID)

# camps
VILLAGE, WOLF, WHITE, PIPERS, LOVERS = "village", "wolf", "white_wolf", "piper", "lovers"
CAMP_NAMES = {
    VILLAGE: "村民阵营",
    WOLF: "狼人阵营",
    WHITE: "白狼阵营",
    PIPERS: "吹笛者阵营",
    LOVERS: "情侣阵营",
}
CAMP_ORDER = (VILLAGE, WOLF, WHITE, PIPERS, LOVERS)

# 预言反馈 (the table's column)
CHECK_RESULT = {**{r: "村民" for r in ALL_ROLES}, **{w: "狼人" for w in WOLVES}, PIPER: "吹笛者"}


# 按照总角色为20人计算 …… 按照“良民-乱民-良民”的良民：乱民=2:1比例增添身份，最多不超过30名角色
EXTRA_PATTERN = (CITIZEN, REBEL, CITIZEN)
MIN_PLAYERS, MAX_PLAYERS = 20, 30


def extra_roles(count: int) -> list[str]:
    """The 良民/乱民 added beyond 20 characters, in the seed's order."""
    return [EXTRA_PATTERN[i % 3] for i in range(count - MIN_PLAYERS)]


def deal(count: int, rng: random.Random) -> list[str]:
    """4 特权 + 6 of the 10 普通身份 (seeded) + 2 良民 + 1 乱民 + 5 狼人 + 吹笛者 + 丘比特 (+ extras)."""
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise ValueError(f"沉寂与取酒需要{MIN_PLAYERS}到{MAX_PLAYERS}名角色，现有{count}名")
    drawn = rng.sample(list(ORDINARY), 6)
    return [*PRIVILEGED, *drawn, CITIZEN, CITIZEN, REBEL, *WOLVES, PIPER, CUPID, *extra_roles(count)]
