"""An AEC-style game environment: the scheduler's stand-in, asking one seat at a time.

    env = GameEnv("pinming", players, seed=7)
    for seat in env.agent_iter():
        obs = env.last()            # that seat's Observation (own view, legal moves)
        env.step(agent.act(obs))    # one of obs.legal, or None to pass

A phase goes like this: at night each stage asks every seat once (in a seeded shuffled
order) and then closes (关闭夜晚阶段); by day every seat is asked once, then the seats that
voted are asked once more (改票); then the director closes the phase (关门). Pending prompts
(最后一枪, 殉职…) are put to their player before anyone else is asked; an unanswered prompt
times out with the rules' default. A seat with no legal command is not asked. Nothing here
reads hidden information on an agent's behalf: agents get `Observation`s only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..agents.observation import Observation
from ..engine.actions import ActionSet, flatten, legal_actions
from ..engine.commands import CLOSE_PHASE, CLOSE_STAGE, DIRECTOR, PROMPT_TIMEOUT, Command, IllegalCommand
from ..engine.core import apply_in_place, apply_offered, next_close, shuffle
from ..engine.events import DIRECTOR as AUDIENCE_DIRECTOR
from ..engine.events import PUBLIC, Event
from ..engine.model import DAY, NIGHT, GameState, Prompt
from ..engine.ruleset import Ruleset
from ..engine.view import view
from ..rulesets.registry import new_game
from .agents import Agent, AgentFactory, RandomAgent, sparing
from .seat import answers_by_pick, bot_prune, draw_uniform


class GameEnv:
    """One game, driven seat by seat. `state` is the simulator's (never an agent's)."""

    def __init__(
        self,
        ruleset: str,
        players: Sequence[str],
        seed: int,
        options: dict[str, Any] | None = None,
        max_phases: int = 200,
    ) -> None:
        self.state: GameState = new_game(ruleset, list(players), options=options, seed=seed)
        self.rs: Ruleset = self.state.rules
        self.ruleset_id = self.rs.id
        self.prune = bot_prune(self.rs)  # the ruleset's bots' share of the legal commands
        self.rng = random.Random(seed * 7919 + 17)  # the posting order, not the game's own RNG
        self.max_phases = max_phases
        self.phases = 0
        self.refused = 0  # commands an agent returned that the engine refused (counted, then passed)
        self._obs: Observation | None = None
        self._prompt: Prompt | None = None
        self._stepped = True
        self._cursor: dict[str, int] = {}
        # False when every agent reads `Observation.actions` only (`uses_actions`): `legal` stays empty
        self.command_lists = True
        # the seats' agents when the env asks them itself (`play_game`): `agent_iter` then yields
        # nothing and plays the game to its end; None: the caller answers each seat yielded
        self.agents: dict[str, Agent] | None = None
        # each such agent's `pick(actions)`, where it has one (`RandomAgent`): asked without an Observation
        self.picks: dict[str, Callable[[Sequence[ActionSet]], Command | None]] = {}
        # the rng of each such agent whose `pick` is `RandomAgent.pick` itself: `draw_uniform` is
        # asked directly (the same draw, one call fewer per seat asked)
        self.draws: dict[str, random.Random] = {}

    # -- the AEC surface ---------------------------------------------------------------------
    @property
    def seats(self) -> tuple[str, ...]:
        return self.state.order

    def roles(self) -> list[str]:
        return [self.state.chars[n].role for n in self.state.order]

    @property
    def finished(self) -> bool:
        return self.state.over

    def agent_iter(self) -> Iterator[str]:
        """Yield the seat to act next until the game ends (or `max_phases` phases pass)."""
        return self._schedule()  # a generator: nothing runs before the first seat is asked for

    def last(self) -> Observation:
        if self._obs is None:
            raise RuntimeError("no seat is being asked")
        return self._obs

    def observe(self, seat: str) -> dict[str, Any]:
        """The engine's view of one seat."""
        return view(self.state, seat)

    def new_events(self, seat: str) -> list[Event]:
        """Events visible to `seat` appended since its last call (the view's filter)."""
        log = self.state.log
        start = self._cursor.get(seat, 0)
        self._cursor[seat] = len(log)
        # `e.audience.includes(seat)` for a seat (never the director), inline
        return [
            e
            for e in log[start:]
            if (kind := e.audience.kind) == PUBLIC or (kind != AUDIENCE_DIRECTOR and seat in e.audience.members)
        ]

    def step(self, command: Command | None) -> None:
        """Apply the asked seat's answer; a refused command counts in `refused` and passes."""
        self._stepped = True
        obs = self._obs
        self._obs = None
        prompt = self._prompt
        self._prompt = None
        if obs is None:
            raise RuntimeError("step() without a seat being asked")
        self._answer(obs.seat, obs.actions, prompt, command)

    def _answer(self, seat: str, actions: Sequence[ActionSet], prompt: Prompt | None, command: Command | None) -> None:
        if command is not None and command.actor != seat:
            self.refused += 1
            command = None
        if command is not None:
            for a in actions:
                if a.offers(command):
                    # one of the moves offered on this very state: applied without a second check
                    apply_offered(self.state, command)
                    return
        if prompt is not None:
            if command is not None and command.skill == prompt.skill:
                try:
                    apply_in_place(self.state, command)
                    return
                except IllegalCommand:
                    self.refused += 1
            if self.state.prompts and self.state.prompts[0] is prompt and not self.state.over:
                self._director(PROMPT_TIMEOUT)
            return
        if command is not None:
            try:
                apply_in_place(self.state, command)
            except IllegalCommand:
                self.refused += 1

    # -- scheduling ---------------------------------------------------------------------------
    def _legal(self, seat: str, prompt: Prompt | None) -> list[ActionSet]:
        """The moves `seat` is offered: the legal ones, less the bots' pruning, only the prompt's."""
        st = self.state
        actions = legal_actions(st, seat)
        prune = self.prune
        if prune is not None:
            actions = prune(st, seat, actions)
        if prompt is not None:
            actions = [a for a in actions if a.skill == prompt.skill]
        return actions

    def _observation(self, seat: str, prompt: Prompt | None, actions: list[ActionSet]) -> Observation:
        st = self.state
        # seat, role, ruleset, phase, stage, prompt, legal, _env, _alive, actions (positional:
        # made for every seat asked)
        return Observation(
            seat,
            st.chars[seat].role,
            self.ruleset_id,
            st.phase,
            st.stage,
            prompt.skill if prompt is not None else None,
            flatten(actions) if self.command_lists else [],
            self,
            None,
            actions,
        )

    def _prepare(self, seat: str, prompt: Prompt | None) -> bool:
        """Ask `seat` (the AEC surface: `last()` holds the question until `step`)."""
        actions = self._legal(seat, prompt)
        if not actions:
            return False
        self._obs = self._observation(seat, prompt, actions)
        self._prompt = prompt
        self._stepped = False
        return True

    def _drive(self, seat: str, prompt: Prompt | None) -> bool:
        """Ask `seat`'s own agent (`agents`) and apply its answer; False: nothing to ask. An agent
        that reads only the action sets and has `pick(actions)` is asked without an Observation."""
        if prompt is None and self.prune is None:
            actions = legal_actions(self.state, seat)  # `_legal`, inline: asked for every seat
        else:
            actions = self._legal(seat, prompt)
        if not actions:
            return False
        pick = self.picks.get(seat)
        if pick is not None:
            command = pick(actions)
            if command is None:
                self._answer(seat, actions, prompt, None)
            else:
                # `pick` answers with one of the sets' own commands (its contract): applied as offered
                apply_offered(self.state, command)
            return True
        agents = self.agents
        assert agents is not None
        self._answer(seat, actions, prompt, agents[seat].act(self._observation(seat, prompt, actions)))
        return True

    def _prompts(self) -> Iterator[str]:
        st = self.state
        while next_close(st) == PROMPT_TIMEOUT:
            head = st.prompts[0]
            if self.agents is not None:
                if not self._drive(head.actor, head):
                    self._director(PROMPT_TIMEOUT)
            elif self._prepare(head.actor, head):
                yield head.actor
                if not self._stepped:  # the caller skipped this seat: the prompt times out
                    self.step(None)
            else:
                self._director(PROMPT_TIMEOUT)
            if st.prompts and st.prompts[0] is head:
                return  # the rules refused even the timeout: leave it to the phase's 关门

    def _schedule(self) -> Iterator[str]:
        st = self.state
        rs = self.rs
        agents = self.agents
        # every seat answers by `pick` and nothing is pruned: `_drive` inline for each seat asked
        picks = self.picks if agents is not None and self.prune is None and len(self.picks) == len(agents) else None
        # ... and every one of them a plain `RandomAgent`: its draw, asked directly with its rng
        draws = self.draws if picks is not None and len(self.draws) == len(picks) else None
        order = list(st.order)
        while not st.over and self.phases < self.max_phases:
            self.phases += 1
            phase = st.phase
            stages = len(rs.night_stages) if phase.kind == NIGHT else 1
            for stage in range(stages):
                shuffle(self.rng, order)
                seen = -1  # len(log) when the checks below last ran: nothing happens without an event
                for name in order:
                    if seen != len(st.log) or st.prompts:
                        if st.prompts and not st.over:  # `_prompts` does nothing otherwise
                            yield from self._prompts()
                        if st.over or (st.phase is not phase and st.phase != phase) or st.settling:
                            break
                        seen = len(st.log)
                    # `_ask`, inline (one generator fewer per seat asked)
                    if draws is not None:
                        # `_drive(name, None)`, inline, with `RandomAgent.pick`'s own draw: None (a
                        # pass: nothing happens) or one of the sets' own commands, applied as offered
                        actions = legal_actions(st, name)
                        if actions:
                            command = draw_uniform(draws[name], actions)
                            if command is not None:
                                apply_offered(st, command)
                    elif picks is not None:
                        # `_drive(name, None)`, inline: `pick` answers None (a pass: nothing
                        # happens) or one of the sets' own commands, applied as offered
                        actions = legal_actions(st, name)
                        if actions:
                            command = picks[name](actions)
                            if command is not None:
                                apply_offered(st, command)
                    elif agents is not None:
                        self._drive(name, None)
                    elif self._prepare(name, None):
                        yield name
                        if not self._stepped:
                            self.step(None)
                if st.over or (st.phase is not phase and st.phase != phase):
                    break
                if stage < stages - 1 and next_close(st) == CLOSE_STAGE:
                    self._director(CLOSE_STAGE)
            if phase.kind == DAY and not st.over and (st.phase is phase or st.phase == phase) and not st.settling:
                # a second round: the seats that voted may change their vote (改票) or act again
                for name in order:
                    if st.prompts and not st.over:
                        yield from self._prompts()
                    if st.over or (st.phase is not phase and st.phase != phase) or st.settling:
                        break
                    if name not in st.votes or name in st.vote_changed:
                        continue
                    if draws is not None:
                        actions = legal_actions(st, name)  # `_drive(name, None)`, inline (as above)
                        if actions:
                            command = draw_uniform(draws[name], actions)
                            if command is not None:
                                apply_offered(st, command)
                    elif picks is not None:
                        actions = legal_actions(st, name)  # `_drive(name, None)`, inline (as above)
                        if actions:
                            command = picks[name](actions)
                            if command is not None:
                                apply_offered(st, command)
                    elif agents is not None:
                        self._drive(name, None)
                    elif self._prepare(name, None):
                        yield name
                        if not self._stepped:
                            self.step(None)
            if not st.over and (st.phase is phase or st.phase == phase):
                self._director(CLOSE_PHASE)
            yield from self._prompts()

    def _director(self, skill: str) -> None:
        """The scheduler's deadline; refused when the rules have already moved on (拍刀环节)."""
        command = _DIRECTOR_COMMANDS.get(skill)
        if command is None:
            command = _DIRECTOR_COMMANDS[skill] = Command(DIRECTOR, skill)
        try:  # noqa: SIM105 (not `contextlib.suppress`: three Python calls per close)
            apply_in_place(self.state, command)
        except IllegalCommand:
            pass


_DIRECTOR_COMMANDS: dict[str, Command] = {}  # the scheduler's deadlines (commands are immutable values)


def play_game(
    ruleset: str,
    players: Sequence[str],
    seed: int,
    factory: AgentFactory,
    options: dict[str, Any] | None = None,
    max_phases: int = 200,
    agent_seed: int | None = None,
) -> GameEnv:
    """Deal with `seed` and play to the end; every seat is an agent made by `factory`."""
    env = GameEnv(ruleset, players, seed, options=options, max_phases=max_phases)
    rng = random.Random(seed ^ 0x5DEECE66D if agent_seed is None else agent_seed)
    ruleset_id = env.ruleset_id
    chars = env.state.chars
    agents: dict[str, Agent] = {seat: factory(seat, chars[seat].role, ruleset_id, rng) for seat in env.seats}
    env.command_lists = False
    for a in agents.values():
        if not getattr(a, "uses_actions", False):
            env.command_lists = True
            break
    env.agents = agents  # the env asks them itself: the same questions in the same order
    if not env.command_lists:
        env.picks = {seat: pick for seat, a in agents.items() if (pick := answers_by_pick(a)) is not None}
        env.draws = {
            seat: pick.__self__.rng  # type: ignore[attr-defined]  # the RandomAgent the method is bound to
            for seat, pick in env.picks.items()
            if getattr(pick, "__func__", None) is RandomAgent.pick
        }
    for _seat in env.agent_iter():
        raise RuntimeError("an env that asks its agents itself yields no seat")
    return env


def play_random_game(ruleset: str, players: Sequence[str], seed: int, max_phases: int = 200) -> GameState:
    """`play_game` with the `sparing` policy (random, a ruleset's rare skills rare; the `random`
    policy itself on a ruleset that declares none): the game `banshe demo` shows and the property
    tests draw, and the game `banshe simulate --policy sparing` plays on the same game seed.
    Raises RuntimeError if it does not end."""
    env = play_game(ruleset, players, seed, sparing, max_phases=max_phases)
    if not env.state.over:
        raise RuntimeError(f"game with seed {seed} did not end in {max_phases} phases")
    return env.state
