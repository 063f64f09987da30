"""Compare a transcript with a scenario's `expect` block (the rules of shared/tools/conformance.py)."""

from __future__ import annotations

from typing import Any


def _s(x: Any) -> str | None:
    return None if x is None else str(x)


def _norm(v: Any) -> Any:
    return sorted(map(str, v)) if isinstance(v, list) else _s(v)


def differences(expect: dict[str, Any], got: dict[str, Any]) -> list[str]:
    diffs: list[str] = []
    for key in ("winner", "ended_in"):
        if key in expect and _s(expect[key]) != _s(got.get(key)):
            diffs.append(f"{key}: expected {expect[key]}, got {got.get(key)}")
    if "outs" in expect:
        want = [[_s(a) for a in row] for row in expect["outs"] or []]
        have = [[o["player"], o["phase"], o["cause"]] for o in got["outs"]]
        if want != have:
            diffs.append(f"outs: expected {want}, got {have}")
    if "sheriff" in expect:
        want = [[_s(a) for a in row] for row in expect["sheriff"] or []]
        have = [[o["phase"], o["player"]] for o in got["sheriff"]]
        if want != have:
            diffs.append(f"sheriff: expected {want}, got {have}")
    phases = {p["phase"]: p for p in got["phases"]}
    for phase, player, skill, target, result in expect.get("private") or []:
        items = (phases.get(_s(phase)) or {}).get("private", {}).get(_s(player), [])
        if not any(
            _s(i["skill"]) == _s(skill) and _norm(i["target"]) == _norm(target) and _norm(i["result"]) == _norm(result)
            for i in items
        ):
            diffs.append(f"private: {[phase, player, skill, target, result]} not found in {items}")
    want_rej = sorted((_s(p), int(i)) for p, i in (expect.get("rejected") or []))
    have_rej = sorted((p["phase"], r["index"]) for p in got["phases"] for r in p["rejected"])
    if want_rej != have_rej:
        diffs.append(f"rejected: expected {want_rej}, got {have_rej}")
    for phase, player, skill in expect.get("absent") or []:
        items = (phases.get(_s(phase)) or {}).get("private", {}).get(_s(player), [])
        if any(_s(i["skill"]) == _s(skill) for i in items):
            diffs.append(f"absent: {[phase, player, skill]} was found in {items}")
    for phase, text in expect.get("announce") or []:
        lines = (phases.get(_s(phase)) or {}).get("announcements", [])
        if not any(str(text) in line for line in lines):
            diffs.append(f"announce: {text!r} not in {phase}: {lines}")
    return diffs
