"""A player's skill on its way to the engine (issue 22): the players' gate, night windows, and
skills aimed at a character whose out is not yet published.

- **The gate.** Players act only in an open phase of the players' clock: before a scheduled start,
  during a settling window and while the dawn 公示 waits, every skill but a prompt's answer is
  refused with the same reason whatever the engine already knows.
- **Night windows** (沉寂与取酒 rulings of 2026-12-04, `ThreadPolicy.night_windows`): a skill of a
  listed stage may be posted from the night's start; posted before its stage opens it is held
  (checked now, on a probe at that stage) and applied when the stage opens, in arrival order, so
  the night settles in deadline order. A waiting stage (the 女巫's, 纯真 and 救赎) opens when the
  earlier deadline passes, or earlier once every input of the earlier stages is in; it keeps its
  planned deadline (the players' clock never moves).
- **Void.** A skill aimed at a character the actor cannot know is out (out, the out not yet
  published) is accepted like any other and kept, void: refusing it would tell him. Once the out
  is published his page says why it had no effect.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..engine.commands import CHANGE_VOTE, CLOSE_STAGE, DIRECTOR, VOTE, Command, IllegalCommand
from ..engine.core import validate
from ..engine.events import Event
from ..engine.model import NIGHT, GameState
from ..engine.view import legal_commands
from . import schedule as sched
from .deadlines import Deadlines
from .errors import ServiceError
from .models import CommandRow, Game, HeldCommand
from .published import Publication, revived
from .seen import probe_at

HELD = "held"
VOID = "void"
APPLIED = "applied"
REFUSED = "refused"
REPLACED = "replaced"


def refusal_of(state: GameState, cmd: Command) -> IllegalCommand | None:
    """Why the engine would refuse `cmd` now (None: it would take it). `validate` changes nothing."""
    try:
        validate(state, state.rules, cmd)
    except IllegalCommand as exc:
        return exc
    return None


def secret_targets(pub: Publication, state: GameState, cmd: Command) -> list[str]:
    """`cmd`'s targets that are out while its actor cannot know it."""
    return [t for t in cmd.targets if t in state.chars and not state.chars[t].alive and not pub.out_known(t, cmd.actor)]


def gate_reason(pub: Publication, state: GameState, cmd: Command, tz_name: str) -> str | None:
    """The players' gate: why a player's command is refused whatever the engine knows (None: go
    on). A prompt's answer passes: only its player has one."""
    spec = state.rules.skills.get(cmd.skill)
    if spec is not None and spec.prompt:
        return None
    if pub.over:
        return None
    if not pub.begun:
        start = sched.local_text(pub.since, sched.zone(tz_name))
        return f"游戏尚未开始（{start}开始）"
    if pub.settling:
        if cmd.skill in (VOTE, CHANGE_VOTE):
            return f"{pub.label}已关门，不能{'投票' if cmd.skill == VOTE else '改票'}"
        return f"{pub.label}已关门，正在结算"
    return None


class Holding(Deadlines):
    """Players' skills: the gate, held night-window skills, void ones (see the module)."""

    def _player_submit(self, s: Session, game: Game, state: GameState, cmd: Command, now: float) -> list[Event]:
        pub = self.publication_of(s, game, state)
        reason = gate_reason(pub, state, cmd, game.timezone)
        if reason:
            raise ServiceError(reason)
        rs = self.ruleset(game)
        stage = rs.stage_for(state, cmd) if state.phase.kind == NIGHT and cmd.skill in rs.skills else None
        if stage is not None and stage > state.stage and self._early(game, stage):
            return self._hold(s, game, state, pub, cmd, stage, now)
        # a night / 开局 submission replaces the player's earlier one of the same skill: judged
        # on the game without it
        prior = self._replaceable(s, game, state, cmd)
        base = state if prior is None else self._without(s, game, prior)
        refusal = refusal_of(base, cmd)
        if refusal is not None and refusal.code == "target_out" and secret_targets(pub, base, cmd):
            return self._void(s, game, base, pub, cmd, refusal.reason, now, prior)
        if refusal is not None:
            raise ServiceError(refusal.reason)
        self._settle_earlier(s, game, state, cmd)
        if prior is not None:
            events = self._replace(s, game, prior, cmd, now)
            state = self.state_of(s, game)
        else:
            events = self._apply(s, game, state, cmd, "player", now)
        self._inputs_in(s, game, state, now)
        return events

    def _without(self, s: Session, game: Game, prior: CommandRow) -> GameState:
        try:
            return self._rebuild(s, game, exclude=prior.seq)
        except IllegalCommand as exc:
            raise ServiceError(f"无法替换之前的提交：{exc.reason}") from None

    # -- night windows -------------------------------------------------------------------------
    def _early(self, game: Game, stage: int) -> bool:
        """Whether night stage `stage` takes its skills from the night's start (held until it opens)."""
        rs = self.ruleset(game)
        return rs.night_stages[stage].id in sched.policy_for(rs).night_windows

    def _hold(
        self, s: Session, game: Game, state: GameState, pub: Publication, cmd: Command, stage: int, now: float
    ) -> list[Event]:
        probe = probe_at(pub, cmd.actor, stage)
        refusal = refusal_of(probe, cmd)
        if refusal is not None:
            raise ServiceError(refusal.reason)
        self._settle_earlier(s, game, state, cmd)
        return _keep(s, game, state, cmd, stage, HELD, now)

    def _release(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        """The held skills of the stage that has just opened, in arrival order."""
        pub: Publication | None = None
        rows = s.scalars(
            select(HeldCommand)
            .where(
                HeldCommand.game_id == game.id,
                HeldCommand.phase == state.phase.label,
                HeldCommand.status == HELD,
                HeldCommand.stage <= state.stage,
            )
            .order_by(HeldCommand.id)
        ).all()
        for row in rows:
            if state.settling or state.phase.label != row.phase:
                break
            cmd = Command.from_json(row.payload)
            refusal = refusal_of(state, cmd)
            row.settled_at = anchor
            if refusal is None:
                self._apply(s, game, state, cmd, "player", anchor)
                row.status = APPLIED
                continue
            if pub is None:
                pub = self.publication_of(s, game, state)
            secret = refusal.code == "target_out" and bool(secret_targets(pub, state, cmd))
            row.status, row.reason = (VOID if secret else REFUSED), refusal.reason

    def _inputs_in(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        """Night windows: the stage after the current one waits (it answers what the earlier
        deadlines decide) and every input of the stages so far is in: it opens now."""
        rs = self.ruleset(game)
        windows = sched.policy_for(rs).night_windows
        if not windows or state.phase.kind != NIGHT or state.settling or state.over:
            return
        i = state.stage
        if i >= len(rs.night_stages) - 1:
            return
        following = rs.night_stages[i + 1]
        if following.opens_with_night or following.id in windows:
            return
        waiting = s.scalar(
            select(HeldCommand.id).where(
                HeldCommand.game_id == game.id,
                HeldCommand.phase == state.phase.label,
                HeldCommand.status == HELD,
                HeldCommand.stage <= i,
            )
        )
        if waiting is not None:
            return
        for name in state.alive_names():
            for c in legal_commands(state, name):
                spec = rs.skills.get(c.skill)
                if spec is None or spec.prompt:
                    continue
                at = rs.stage_for(state, c)
                if at is not None and at <= i:
                    return  # someone may still act in a stage so far
        self._apply(s, game, state, Command(DIRECTOR, CLOSE_STAGE), "inputs", anchor)

    def _open_held_stages(self, s: Session, game: Game, state: GameState, source: str, anchor: float) -> None:
        """The night closes (the director, or its last deadline) while skills wait for a later
        stage: each such stage opens first, in order, so they settle as they would have."""
        last = len(self.ruleset(game).night_stages) - 1
        for _ in range(last + 1):
            if state.stage >= last or state.settling or state.phase.kind != NIGHT:
                return
            waiting = s.scalar(
                select(HeldCommand.id).where(
                    HeldCommand.game_id == game.id,
                    HeldCommand.phase == state.phase.label,
                    HeldCommand.status == HELD,
                    HeldCommand.stage > state.stage,
                )
            )
            if waiting is None:
                return
            self._apply(s, game, state, Command(DIRECTOR, CLOSE_STAGE), source, anchor)

    def _stage_opened(self, s: Session, game: Game, state: GameState, anchor: float) -> None:
        super()._stage_opened(s, game, state, anchor)
        if sched.policy_for(self.ruleset(game)).night_windows and state.phase.kind == NIGHT:
            self._release(s, game, state, anchor)
            self._inputs_in(s, game, state, anchor)

    # -- void ----------------------------------------------------------------------------------
    def _void(
        self,
        s: Session,
        game: Game,
        state: GameState,
        pub: Publication,
        cmd: Command,
        reason: str,
        now: float,
        prior: CommandRow | None,
    ) -> list[Event]:
        """Accept `cmd`, aimed at a character the actor cannot know is out, as void (`state`: the
        game without the submission it replaces, `prior`)."""
        refusal = refusal_of(revived(pub, cmd.actor, state), cmd)
        if refusal is not None:
            raise ServiceError(refusal.reason)  # refused whoever is out: the usual reason
        self._settle_earlier(s, game, state, cmd)
        if prior is not None:
            self._withdraw(s, game, prior, state)
        rs = self.ruleset(game)
        stage = rs.stage_for(state, cmd) if state.phase.kind == NIGHT else None
        return _keep(s, game, state, cmd, state.stage if stage is None else stage, VOID, now, reason)

    def _settle_earlier(self, s: Session, game: Game, state: GameState, cmd: Command) -> None:
        """A new submission of a skill replaces the player's held or void one of this phase."""
        for row in s.scalars(
            select(HeldCommand).where(
                HeldCommand.game_id == game.id,
                HeldCommand.actor == cmd.actor,
                HeldCommand.skill == cmd.skill,
                HeldCommand.phase == state.phase.label,
                HeldCommand.status.in_((HELD, VOID)),
            )
        ):
            row.status = REPLACED

    def _withdraw(self, s: Session, game: Game, prior: CommandRow, candidate: GameState) -> None:
        """Take back an applied submission (replaced by a void one): the game without it."""
        prior.superseded = True
        s.flush()
        self._cache.pop(game.id, None)
        from .store import Cached

        self._remember(game.id, Cached(self._head(s, game.id), candidate))

    def held_of(self, s: Session, game_id: int, phase: str) -> list[HeldCommand]:
        """This phase's held and void submissions and how they ended (pages and the god view)."""
        return list(
            s.scalars(
                select(HeldCommand)
                .where(HeldCommand.game_id == game_id, HeldCommand.phase == phase, HeldCommand.status != REPLACED)
                .order_by(HeldCommand.id)
            )
        )


def _keep(
    s: Session,
    game: Game,
    state: GameState,
    cmd: Command,
    stage: int,
    status: str,
    now: float,
    reason: str | None = None,
) -> list[Event]:
    """A submission kept beside the engine: held until its stage opens, or void (settled now)."""
    s.add(
        HeldCommand(
            game_id=game.id,
            actor=cmd.actor,
            skill=cmd.skill,
            payload=cmd.to_json(),
            phase=state.phase.label,
            stage=stage,
            status=status,
            reason=reason,
            created_at=now,
            settled_at=now if status == VOID else None,
        )
    )
    s.flush()
    return []
