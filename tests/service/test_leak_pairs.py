"""Random games of every ruleset in pairs of worlds that differ only in hidden facts (issue 22):
two identities swapped, the night's kill on another seat, a 猎人 or a 村民 killed. Both worlds
get the same inputs at the same times (one fake clock); after every step, every player told
nothing of the difference — the rules have told him the same in both worlds (his private events,
his legal moves) and the published 公示 are the same — must receive byte-identical responses:
his page, thread page, state.json (view, actions, deadline label, windows, thread), and the live
feed's messages. Once a difference is published, the pair has done its work.

SQLite only (the three leaks run on both databases in test_published.py); a few pairs per
ruleset, each a few dozen steps.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from banshe.demo import DEMO_NAMES
from banshe.rulesets.registry import get_ruleset
from banshe.service.errors import ServiceError

from .conftest import PINMING_SEATS
from .test_e2e_chenji import SEATS as CHENJI_SEATS
from .test_e2e_chenji import SEED as CHENJI_SEED
from .worlds import Twins, twin_urls

GANRAN_SEED = 3
# skills that end the game on the spot (决战 then 拍刀, 投降): a pair that ends at once shows nothing
ENDINGS = frozenset({"duel", "surrender", "slash"})


@dataclass(frozen=True)
class Pair:
    ruleset: str
    kind: str  # swap | kill | hunter
    seed: int
    steps: int


PAIRS = [
    Pair("pinming", "swap", 1, 40),
    Pair("pinming", "kill", 2, 40),
    Pair("pinming", "hunter", 3, 40),
    Pair("chenji", "swap", 4, 24),
    Pair("chenji", "hunter", 5, 24),
    Pair("ganran", "swap", 8, 30),
    Pair("ganran", "kill", 7, 30),
]


def _seats(ruleset: str) -> tuple[dict[str, str], int]:
    if ruleset == "pinming":
        return dict(PINMING_SEATS), 7  # 品茗 takes only its deck (rulings 2026-12-04): swaps keep it
    if ruleset == "chenji":
        return dict(CHENJI_SEATS), CHENJI_SEED
    # 感染 with 10 seats: the seed's deal, written out (a hand table keeps both worlds' deals equal)
    from banshe.rulesets import new_game

    names = DEMO_NAMES[:10]
    state = new_game("ganran", names, None, {}, GANRAN_SEED)
    rs = get_ruleset("ganran")
    return {n: rs.role_name(state.chars[n].role) for n in names}, GANRAN_SEED


def _role(seats: dict[str, str], *roles: str) -> list[str]:
    return [n for n, r in seats.items() if r in roles]


@pytest.fixture
def urls(tmp_path: Path) -> Iterator[tuple[str, str]]:
    yield from twin_urls("sqlite", tmp_path)


class Play:
    """The pair's inputs: drawn from world A's pages, sent to both worlds alike."""

    def __init__(self, t: Twins, pair: Pair, seats: dict[str, str], victim: str, other: str) -> None:
        self.t, self.pair, self.seats = t, pair, seats
        self.rng = random.Random(pair.seed)
        self.victim, self.other = victim, other  # the kill pair's two targets
        self.kill_done = False
        self.prompted = False
        self.told: set[str] = set()  # players the rules told something of the difference
        self.compared = 0
        self.markers = 0
        self.published: tuple[list[str], list[str]] = ([], [])
        self.chatted = True  # a group message shows on pages only: compare them after one

    def both(self, act: str, name: str, **fields: str) -> None:
        for w in self.t.worlds:
            if act == "post":
                w.h.post(w.links[name], fields["text"])
            else:
                w.h.act(w.links[name], act, **fields)

    def step(self) -> None:
        a = self.t.a
        game, state, pub = a.h.service.read_published(a.game)
        roll = self.rng.random()
        names = list(a.links)
        if roll < 0.25 or not pub.open:
            dues = [d for d in (w.h.service.next_due() for w in self.t.worlds) if d is not None]
            if dues:
                self.t.run_until(min(dues))
            return
        if roll < 0.30:
            author = self.rng.choice([n for n in names if pub.alive_to(n, None)])
            alive = [n for n in names if pub.alive_to(n, None)]
            target = self.rng.choice([*alive, "弃权"])
            self.both("post", author, text=f"投票对象：{target}\n投票理由：随机")
            return
        if roll < 0.36:
            author = self.rng.choice(names)
            self.markers += 1
            self.both("post", author, text=f"随便聊聊{self.markers}")
            return
        if roll < 0.40:
            groups = [(g, m) for g, m in pub.shown.groups.items() if m]
            if groups:
                g, members = self.rng.choice(groups)
                author = self.rng.choice(list(members))
                self.markers += 1
                self.chatted = True
                for w in self.t.worlds:
                    with contextlib.suppress(ServiceError):  # out, or not shown the group yet
                        w.h.service.group_post(w.game, author, g, f"群聊{self.markers}")
            return
        if self.pair.kind in ("kill", "hunter") and not self.kill_done and "夜" in pub.label:
            # the pair's night kill, as soon as a killer's page offers it
            for name in names:
                for act in a.h.state(a.links[name])["actions"]:  # type: ignore[union-attr]
                    if act["skill"] in ("kill", "bite", "suck") and self.victim in act["targets"]:
                        other = self.other if self.pair.kind == "kill" else self.victim
                        if other not in act["targets"]:
                            continue
                        self.kill_done = True
                        self.t.a.h.act(self.t.a.links[name], act["skill"], target=self.victim)
                        self.t.b.h.act(self.t.b.links[name], act["skill"], target=other)
                        return
        # a skill from world A's pages (a few players' actions as their state.json lists them)
        options = []
        for name in self.rng.sample(names, min(4, len(names))):
            data = a.h.state(a.links[name])
            options += [(name, act) for act in data["actions"] if act["skill"] not in ENDINGS]  # type: ignore[union-attr]
        if not options:
            dues = [d for d in (w.h.service.next_due() for w in self.t.worlds) if d is not None]
            if dues:
                self.t.run_until(min(dues))
            return
        name, act = self.rng.choice(options)
        fields: dict[str, str] = {}
        targets = list(act["targets"])
        if self.pair.kind in ("kill", "hunter") and act["skill"] in ("kill", "bite", "suck"):
            return  # the pair's own kill only (the difference under test)
        if targets:
            fields["target"] = self.rng.choice(targets)
        else:
            alive = [n for n in names if pub.alive_to(n, None)]
            fields["targets"] = "、".join(self.rng.sample(alive, min(2, len(alive))))
            fields["answer"] = self.rng.choice(["是", "否"])
            fields["text"] = f"遗言{self.rng.randrange(999)}"
        if act["skill"] in ("shoot",) and self.pair.kind == "hunter":
            return  # the 猎人 keeps his prompt open: the window must look the same without it
        self.both(act["skill"], name, **fields)

    def check(self, where: str) -> bool:
        """Compare the worlds for every player still told nothing; False once a difference is
        published (the pair is done)."""
        t = self.t
        if t.a.public_texts() != t.b.public_texts():
            self.published = (t.a.public_texts(), t.b.public_texts())
            return False
        for name in t.a.links:
            if name not in self.told and t.a.told(name) != t.b.told(name):
                self.told.add(name)
        _g, state = t.a.h.service.read(t.a.game)
        if state.prompts and state.prompt_raised and state.prompts[0].actor == self.victim:
            self.prompted = True  # the 猎人's prompt is open while the others are compared
        uninformed = [n for n in t.a.links if n not in self.told]
        t.same(uninformed, where, pages=self.chatted)
        self.chatted = False
        self.compared += len(uninformed)
        return True


def _setup(pair: Pair) -> tuple[dict[str, str], dict[str, str], str, str]:
    """World A's and world B's identity tables, and the kill pair's two targets."""
    seats, _seed = _seats(pair.ruleset)
    rng = random.Random(pair.seed)
    a, b = dict(seats), dict(seats)
    victim = other = ""
    if pair.kind == "swap":
        one = rng.choice(list(seats))
        two = rng.choice([n for n in seats if seats[n] != seats[one]])
        b[one], b[two] = seats[two], seats[one]
    elif pair.kind == "kill":
        plain = [n for n, r in seats.items() if "狼" not in r and r not in ("女巫", "吸血鬼", "穆图", "该隐")]
        victim, other = rng.sample(plain, 2)
    else:  # hunter: the 猎人 in world A is a 村民 (or 良民) in world B, and the night kills him
        hunter = _role(seats, "猎人")[0]
        plain = (_role(seats, "村民", "良民") or [n for n in seats if n != hunter])[0]
        b[hunter], b[plain] = seats[plain], seats[hunter]
        victim = hunter
    return a, b, victim, other


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p.ruleset}-{p.kind}" for p in PAIRS])
def test_pairs_of_worlds_look_the_same_to_whoever_was_told_nothing(urls: tuple[str, str], pair: Pair) -> None:
    started = time.monotonic()
    a_seats, b_seats, victim, other = _setup(pair)
    _seats_, seed = _seats(pair.ruleset)
    with Twins(urls) as t:
        t.a.create(pair.ruleset, a_seats, auto_publish=True, seed=seed)
        t.b.create(pair.ruleset, b_seats, auto_publish=True, seed=seed)
        play = Play(t, pair, a_seats, victim, other)
        assert play.check("start")
        steps = 0
        for i in range(pair.steps):
            play.step()
            steps += 1
            if not play.check(f"{pair.ruleset}-{pair.kind} step {i}"):
                break
            _g, state = t.a.h.service.read(t.a.game)
            if state.over:
                break
        assert play.compared > 0
        assert pair.kind != "kill" or play.kill_done, "the kill pair's different kill never came"
        assert pair.kind != "hunter" or play.prompted, "the 猎人's prompt was never open while compared"
        # the pair got somewhere: past 开局, with someone still told nothing
        assert steps >= 5 and len(play.told) < len(a_seats), (steps, play.told, play.published)
    print(f"{pair.ruleset}-{pair.kind}: {steps} steps, {play.compared} comparisons, {time.monotonic() - started:.1f} s")
