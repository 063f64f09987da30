"""The flow every library board shares (品茗's, without its own skills): the sheriff (竞岗 on
第1天, 带队 weight, 殉职 or 撕警徽), the day's vote (top vote out; a tie as `flow.tie` says: no
one, 警长决定 or 替罪羊), 红牌, 遗言 for the first N outs, the wolf group formed at 开局, and the
night's settlement (杀人 against 救药 and 守护, then 毒药). What a role adds to it is declared on
the role (`LibraryRole` hooks)."""

from __future__ import annotations

from collections.abc import Sequence

from banshe.engine.commands import Command, IllegalCommand
from banshe.engine.core import (
    announce,
    check_outcome,
    draw,
    elect_sheriff,
    feedback,
    group_notice,
    push_prompt,
    put_out,
    set_sheriff,
    settle_red_cards,
    tally,
    top_of,
)
from banshe.engine.last_words import grant_last_words
from banshe.engine.model import DAY, GameState, Prompt
from banshe.engine.ruleset import ATTACK, ONE_TARGET, SUCCESSOR, TEAR_BADGE, SkillSpec

from .role import params, report, role_name
from .state import ext

SUCCEED = "succeed"
TIE_BREAK = "tie_break"  # 平票裁决 (flow.tie: 警长决定)
GUARD = "guard"  # the 守卫's id (its 守护 changes the night's settlement)
SCAPEGOAT = "scapegoat"  # the 替罪羊's id (flow.tie: 替罪羊 puts him out for a tie)
SCAPEGOAT_CAUSES = ("冤死", "投票")  # the 替罪羊's 出局原因 (his parameter; the first is the default)


# -- 开局 ---------------------------------------------------------------------------------------
def form_groups(state: GameState) -> None:
    """开局 closes: each group (狼群 …) is formed of its members, who are told one another (not a
    lover who has left his camp for 情侣阵营: `BoardState.ungrouped`)."""
    table: dict[str, tuple[str, ...]] = state.rules.board.group_roles
    ungrouped = ext(state).ungrouped
    for group, roles in table.items():
        members = [c.name for c in state.chars.values() if c.role in roles and c.name not in ungrouped]
        members.sort(key=lambda n: state.chars[n].seat)
        state.groups[group] = tuple(members)
        group_notice(state, group, "狼群成员：" + "、".join(members), members=list(members))


def start(state: GameState) -> None:
    """开局 closes: the roles' own settlement (丘比特's lovers), the groups, then win/loss."""
    for settle in state.rules.board.start_hooks:
        settle(state)
    form_groups(state)
    check_outcome(state)


# -- outs -----------------------------------------------------------------------------------------
def on_out(state: GameState, name: str, cause: str) -> None:
    """遗言 for the first N outs (not 罚下), the role's own reaction (最后一枪 …), the badge, then
    what the board's roles do on anyone's out (殉情: the partner's out comes after this one's
    prompts and 遗言)."""
    c = state.chars[name]
    if cause != "罚下" and ext(state).unheard != name:
        grant_last_words(state, name, "次日讨论日开始前提交")
    hook = state.rules.board.out_hooks.get(c.role)
    if hook is not None:
        hook(state, name, cause)
    if state.sheriff == name:
        if cause == "罚下":
            successor = draw(state, "罚下警长的继任者", successor_candidates(state, name))
            hand_badge(state, successor)
        else:
            push_prompt(state, Prompt(name, SUCCEED, "选择继任警长，或撕掉警徽。"))
    for watcher in state.rules.board.out_watchers:
        watcher(state, name, cause)


def successor_candidates(state: GameState, sheriff: str) -> list[str]:
    """Who may take the badge: a character still in the game whom the roles' hooks let be voted
    for (白痴装傻后不能成为警长<殉职>的目标)."""
    rs = state.rules
    return [n for n in state.order if n != sheriff and state.is_alive(n) and rs.can_be_voted(state, n) is None]


def successors(state: GameState, sheriff: str) -> list[str]:
    return [*successor_candidates(state, sheriff), TEAR_BADGE]


def hand_badge(state: GameState, successor: str | None) -> None:
    old = state.sheriff
    set_sheriff(state, successor)
    if successor:
        report(state, f"警长{old}殉职，警徽移交给{successor}。")
    else:
        report(state, f"警长{old}撕掉了警徽。")


def check_succeed(state: GameState, cmd: Command) -> None:
    # 殉职<强制> — 选择一名角色继任警长或撕掉警徽
    target = cmd.targets[0]
    if target != TEAR_BADGE and target not in successor_candidates(state, cmd.actor):
        raise IllegalCommand(f"{target}不能继任警长")


def answer_succeed(state: GameState, prompt: Prompt, cmd: Command) -> None:
    target = cmd.targets[0]
    hand_badge(state, None if target == TEAR_BADGE else target)


def succeed_lapses(state: GameState, prompt: Prompt) -> None:
    # 警长未按时发动<殉职>后，则视为撕掉警徽
    hand_badge(state, None)


def _no_apply(state: GameState, cmd: Command) -> None:
    return None


def succeed_skill(phases: frozenset[str]) -> SkillSpec:
    return SkillSpec(
        SUCCEED,
        "殉职",
        phases,
        SUCCESSOR,
        check_succeed,
        _no_apply,
        prompt=True,
        actor_may_be_out=True,
        answer=answer_succeed,
        on_timeout=succeed_lapses,
        candidates=successors,
    )


# -- the day ------------------------------------------------------------------------------------
def _fmt(v: float) -> str:
    return str(int(v)) if v == int(v) else str(v)


def _summary(counts: dict[str, float]) -> str:
    return "，".join(f"{t} {_fmt(v)}票" for t, v in sorted(counts.items(), key=lambda kv: -kv[1]))


def resolve_vote(state: GameState) -> None:
    """获得投票最多的角色出局; 平票无人出局; a role's own reaction may keep him (装傻)."""
    counts = tally(state, state.rules)
    top = top_of(counts)
    summary = _summary(counts)
    announce(state, f"{state.phase.label}投票结束。" + (f"票数：{summary}。" if summary else "无人投票。"))
    if len(top) != 1:
        announce(state, "平票，无人出局。" if top else "无人出局。")
        return
    target = top[0]
    hook = state.rules.board.voted_out_hooks.get(state.chars[target].role)
    if hook is not None and hook(state, target):
        return
    announce(state, f"{target}被投票出局。")
    put_out(state, target, "投票")


# -- 平票：警长决定 (flow.tie) ------------------------------------------------------------------
def resolve_vote_sheriff_decides(state: GameState) -> None:
    """平票：警长决定 — a tie of the top vote with a sheriff in the game: he chooses one of the
    tied (平票裁决, a prompt), who is out by the vote; unanswered, or with no sheriff, the tie puts
    no one out (docs/rulings.md). Anything else is `resolve_vote`."""
    counts = tally(state, state.rules)
    top = top_of(counts)
    sheriff = state.sheriff
    if len(top) < 2 or not sheriff or not state.is_alive(sheriff):
        resolve_vote(state)
        return
    seated = tuple(n for n in state.order if n in top)
    tied = "、".join(seated)
    announce(state, f"{state.phase.label}投票结束。票数：{_summary(counts)}。")
    announce(state, f"平票（{tied}），由警长{sheriff}决定其中一人出局。")
    push_prompt(state, Prompt(sheriff, TIE_BREAK, f"平票，选择其中一人出局：{tied}。", (("tied", seated),)))


def tied_of(state: GameState, actor: str) -> list[str]:
    """`SkillSpec.candidates` of 平票裁决: the tied still in the game, in seat order."""
    for prompt in state.prompts:
        if prompt.actor == actor and prompt.skill == TIE_BREAK:
            return [n for n in prompt.get("tied", ()) if state.is_alive(n)]
    return []


def check_tie_break(state: GameState, cmd: Command) -> None:
    if cmd.targets[0] not in tied_of(state, cmd.actor):
        raise IllegalCommand(f"{cmd.targets[0]}不在平票者之中")


def answer_tie_break(state: GameState, prompt: Prompt, cmd: Command) -> None:
    target = cmd.targets[0]
    announce(state, f"警长{cmd.actor}决定{target}出局。")
    hook = state.rules.board.voted_out_hooks.get(state.chars[target].role)
    if hook is not None and hook(state, target):
        return
    announce(state, f"{target}被投票出局。")
    put_out(state, target, "投票")


def tie_break_lapses(state: GameState, prompt: Prompt) -> None:
    announce(state, f"警长{prompt.actor}未按时决定，平票无人出局。")


def tie_break_skill() -> SkillSpec:
    return SkillSpec(
        TIE_BREAK,
        "平票裁决",
        frozenset({DAY}),
        ONE_TARGET,
        check_tie_break,
        _no_apply,
        prompt=True,
        answer=answer_tie_break,
        on_timeout=tie_break_lapses,
        candidates=tied_of,
        intent=ATTACK,
        irreversible=True,
    )


# -- 平票：替罪羊 (flow.tie) --------------------------------------------------------------------
def scapegoat_of(state: GameState) -> str | None:
    """The 替罪羊 who takes a tie: the first in seat order still in the game with his skills."""
    for name in state.order:
        c = state.chars[name]
        if c.role == SCAPEGOAT and c.alive and not c.skills_lost:
            return name
    return None


def resolve_vote_scapegoat(state: GameState) -> None:
    """平票：替罪羊 — 冤死<锁定技>: a tie of the top vote puts the 替罪羊 out in place of the tied
    (him alone, even when he is among them), 公示; with no 替罪羊 left the tie puts no one out
    (docs/rulings.md). Anything else is `resolve_vote`."""
    counts = tally(state, state.rules)
    top = top_of(counts)
    goat = scapegoat_of(state) if len(top) > 1 else None
    if goat is None:
        resolve_vote(state)
        return
    seated = "、".join(n for n in state.order if n in top)
    announce(state, f"{state.phase.label}投票结束。票数：{_summary(counts)}。")
    announce(state, f"平票（{seated}），{role_name(state, SCAPEGOAT)}{goat}代替平票者出局。")
    goat_params = params(state, SCAPEGOAT)
    data = ext(state)
    if not goat_params.get("遗言", True):
        data.unheard = goat  # this out takes no 遗言 (`on_out`)
    try:
        put_out(state, goat, goat_params.get("出局原因", SCAPEGOAT_CAUSES[0]))
    finally:
        data.unheard = None


def elect(state: GameState) -> None:
    """竞岗<强制> — 第一天投票结束后，最先获得投票数最多的角色当选警长."""
    counts = tally(state, state.rules)
    winner = elect_sheriff(state, counts)
    if winner is None:
        announce(state, "第1天投票结束，无人投票，本局暂无警长。")
        return
    announce(state, f"第1天投票结束（{_summary(counts)}），{winner}当选警长。")
    set_sheriff(state, winner)


def red_card(state: GameState, name: str) -> None:
    report(state, f"{name}被红牌罚下。")
    put_out(state, name, "罚下")


def red_cards(state: GameState) -> None:
    settle_red_cards(state, state.rules)


# -- the night ----------------------------------------------------------------------------------
def tell_held(state: GameState) -> None:
    """The night settles: the answers a board held (`Board.holds_answer`), in the order given."""
    data = ext(state)
    held, data.held = data.held, ()
    for to, skill, target, result, text in held:
        feedback(state, to, skill, target, result, text)


def settle_night(state: GameState) -> None:
    """The answers held till now (`tell_held`), 杀人结算 (the 救药 or 守护 target survives; both on
    the kill target, 同守同救, is out when the 守卫's rule says so), then 毒药结算. Prompts raised
    wait for the whole settlement, in the order of the outs."""
    data = ext(state)
    if data.held:
        tell_held(state)
    kill = data.kill
    if kill and state.is_alive(kill):
        guarded = data.guarded is not None and data.guarded == (state.phase.number, kill)
        saved = kill == data.save
        # 同守同救: both on the kill target — the 守卫's rule decides (standard boards: out)
        both = guarded and saved
        if (both and params(state, GUARD).get("同守同救", "出局") == "出局") or not (guarded or saved):
            put_out(state, kill, "杀人")
    poison = data.poison
    if poison and state.is_alive(poison):
        put_out(state, poison, "毒药")


def living(state: GameState, roles: Sequence[str]) -> bool:
    return any(c.alive and c.role in roles for c in state.chars.values())
