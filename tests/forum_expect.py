"""Compare `banshe forum count`'s JSON with a fixture's expect.json (the keys of
../shared/forum/README.md, as ../shared/tools/forum_conformance.py checks them), plus three of
this project's real-forum fixtures (tests/forum_real/):

  floors   the exact list of floors in `posts`, in order (one post, one floor, never renumbered)
  banned   the exact set of floors listed as 屏蔽 (`banned` set)
  error    the count is refused: exit 2 and stderr containing this text (no other key applies)
"""

from __future__ import annotations

from typing import Any


def _floor(x: Any) -> Any:
    try:
        return int(x)
    except (TypeError, ValueError):
        return x


def _rows(rows: Any) -> list[list[str | None]]:
    return [[None if a is None else str(a) for a in row] for row in rows or []]


def compare(expect: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """The differences (empty when the output meets every expectation)."""
    diffs: list[str] = []
    posts = [p for p in got.get("posts") or [] if isinstance(p, dict)]
    by_floor = {_floor(p.get("floor")): p for p in posts}
    if "day" in expect and got.get("day") != expect["day"]:
        diffs.append(f"day: expected {expect['day']}, got {got.get('day')}")
    if "inputs" in expect and _rows(expect["inputs"]) != _rows(got.get("inputs")):
        diffs.append(f"inputs: expected {expect['inputs']}, got {got.get('inputs')}")
    if "floors" in expect and [_floor(f) for f in expect["floors"]] != [_floor(p.get("floor")) for p in posts]:
        diffs.append(f"floors: expected {expect['floors']}, got {[p.get('floor') for p in posts]}")
    if "refused" in expect:
        want = {_floor(k): v for k, v in expect["refused"].items()}
        have = {_floor(p.get("floor")): p.get("refused") for p in posts if p.get("refused")}
        if set(want) != set(have):
            diffs.append(f"refused floors: expected {sorted(want, key=str)}, got {have}")
        for fl in set(want) & set(have):
            if want[fl] and str(want[fl]) not in str(have[fl]):
                diffs.append(f"refused: floor {fl} reason {have[fl]!r} lacks {want[fl]!r}")
    if "banned" in expect:
        have_banned = sorted(_floor(p.get("floor")) for p in posts if p.get("banned"))
        if sorted(_floor(f) for f in expect["banned"]) != have_banned:
            diffs.append(f"banned: expected {expect['banned']}, got {have_banned}")
    for fl in expect.get("absent_floors") or []:
        if _floor(fl) in by_floor:
            diffs.append(f"absent_floors: floor {fl} is in posts")
    for key in ("kinds", "times"):
        field = {"kinds": "kind", "times": "time"}[key]
        for fl, value in (expect.get(key) or {}).items():
            p = by_floor.get(_floor(fl))
            if p is None or p.get(field) != value:
                diffs.append(f"{key}: floor {fl} expected {value}, got {None if p is None else p.get(field)}")
    if "edited" in expect:
        have_edited = sorted(_floor(p.get("floor")) for p in posts if p.get("edited"))
        if sorted(_floor(f) for f in expect["edited"]) != have_edited:
            diffs.append(f"edited: expected {expect['edited']}, got {have_edited}")
    counts = got.get("post_counts") or {}
    for name, n in (expect.get("post_counts") or {}).items():
        if int(counts.get(name, 0) or 0) != int(n):
            diffs.append(f"post_counts: {name} expected {n}, got {counts.get(name, 0)}")
    flags = [f for f in got.get("flags") or [] if isinstance(f, dict)]

    def has_flag(player: str, rule: str) -> bool:
        return any(f.get("player") == player and rule in str(f.get("rule", "")) for f in flags)

    for player, rule in expect.get("flags_present") or []:
        if not has_flag(player, rule):
            diffs.append(f"flags_present: no ({player}, {rule})")
    for player, rule in expect.get("flags_absent") or []:
        if has_flag(player, rule):
            diffs.append(f"flags_absent: unexpected ({player}, {rule})")
    for fl, rules in (expect.get("post_flags") or {}).items():
        p = by_floor.get(_floor(fl))
        texts = [str(f.get("rule", "")) for f in (p or {}).get("flags") or []]
        if p is None or (not rules and texts) or any(not any(r in t for t in texts) for r in rules):
            diffs.append(f"post_flags: floor {fl} expected {rules}, got {texts}")
    transcript = got.get("transcript") or {}
    want_t = expect.get("transcript") or {}
    if "outs" in want_t:
        have_outs = [[o.get("player"), o.get("phase"), o.get("cause")] for o in transcript.get("outs") or []]
        if _rows(want_t["outs"]) != _rows(have_outs):
            diffs.append(f"transcript.outs: expected {want_t['outs']}, got {have_outs}")
    if "sheriff" in want_t:
        have_sheriff = [[o.get("phase"), o.get("player")] for o in transcript.get("sheriff") or []]
        if _rows(want_t["sheriff"]) != _rows(have_sheriff):
            diffs.append(f"transcript.sheriff: expected {want_t['sheriff']}, got {have_sheriff}")
    return diffs
