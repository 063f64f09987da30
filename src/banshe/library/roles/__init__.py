"""The role library: one module per known role (`ROLE`, a `LibraryRole`). `LIBRARY` lists them by
id; a board names a role by its id or its Chinese name (`find_role`)."""

from __future__ import annotations

from ..role import LibraryRole
from . import cupid, guard, hunter, idiot, scapegoat, seer, villager, witch, wolf, wolf_king

LIBRARY: dict[str, LibraryRole] = {
    m.ROLE.id: m.ROLE for m in (seer, witch, hunter, idiot, guard, villager, wolf, wolf_king, scapegoat, cupid)
}


def find_role(name: str) -> LibraryRole | None:
    """A library role by id (`seer`) or Chinese name (`预言家`)."""
    found = LIBRARY.get(name)
    if found is not None:
        return found
    for role in LIBRARY.values():
        if role.name == name:
            return role
    return None


__all__ = ["LIBRARY", "find_role"]
