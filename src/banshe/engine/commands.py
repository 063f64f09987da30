"""Commands: every input a player, the director or the scheduler gives the engine."""

from __future__ import annotations

from dataclasses import dataclass, field

DIRECTOR = "导演"
ABSTAIN = "弃权"

# Engine-level skills (ids). Ruleset skills are declared by each ruleset.
VOTE = "vote"
CHANGE_VOTE = "change_vote"
CLOSE_STAGE = "close_stage"
CLOSE_PHASE = "close_phase"
PROMPT_TIMEOUT = "prompt_timeout"
CARD_BLUE = "card_blue"
CARD_YELLOW = "card_yellow"
CARD_RED = "card_red"
DEDUCT = "deduct"
ACCELERATE = "accelerate"
DELAY = "delay"
JUDGE_LOSS = "judge_loss"

ENGINE_SKILL_NAMES: dict[str, str] = {
    VOTE: "投票",
    CHANGE_VOTE: "改票",
    CLOSE_STAGE: "关闭夜晚阶段",
    CLOSE_PHASE: "关门",
    PROMPT_TIMEOUT: "超时",
    CARD_BLUE: "蓝牌",
    CARD_YELLOW: "黄牌",
    CARD_RED: "红牌",
    DEDUCT: "扣分",
    ACCELERATE: "加速",
    DELAY: "延时",
    JUDGE_LOSS: "判负",
}

DIRECTOR_SKILLS = frozenset(
    {CLOSE_STAGE, CLOSE_PHASE, PROMPT_TIMEOUT, CARD_BLUE, CARD_YELLOW, CARD_RED, DEDUCT, ACCELERATE, DELAY, JUDGE_LOSS}
)


@dataclass(frozen=True, slots=True)
class Command:
    """One input. `targets` are player names (or 弃权 for a vote); `text` is free text;
    `answer` a yes/no; `amount` a number (扣分)."""

    actor: str
    skill: str
    targets: tuple[str, ...] = ()
    text: str | None = None
    answer: bool | None = None
    amount: int | None = None
    # `to_json()`, made on first use by `logged` (commands are immutable, and reused)
    _json: dict[str, object] | None = field(default=None, init=False, repr=False, compare=False, hash=False)
    # `accepted_data()`, made on first use (the data of the event that logs this command)
    _accepted: dict[str, object] | None = field(default=None, init=False, repr=False, compare=False, hash=False)

    @property
    def target(self) -> str | None:
        return self.targets[0] if self.targets else None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"actor": self.actor, "skill": self.skill}
        if self.targets:
            out["targets"] = list(self.targets)
        if self.text is not None:
            out["text"] = self.text
        if self.answer is not None:
            out["answer"] = self.answer
        if self.amount is not None:
            out["amount"] = self.amount
        return out

    def logged(self) -> dict[str, object]:
        """`to_json()`, made once per command and shared by every event that logs it: read it,
        never change it."""
        data = self._json
        if data is None:
            data = self.to_json()
            object.__setattr__(self, "_json", data)
        return data

    def accepted_data(self) -> dict[str, object]:
        """`{"command": logged()}`, the data of the event that logs this command once accepted,
        made once per command and shared by those events: read it, never change it."""
        data = self._accepted
        if data is None:
            data = {"command": self.logged()}
            object.__setattr__(self, "_accepted", data)
        return data

    @staticmethod
    def from_json(data: dict[str, object]) -> Command:
        targets = data.get("targets") or []
        amount = data.get("amount")
        answer = data.get("answer")
        text = data.get("text")
        return Command(
            actor=str(data["actor"]),
            skill=str(data["skill"]),
            targets=tuple(str(t) for t in targets) if isinstance(targets, list) else (),
            text=None if text is None else str(text),
            answer=None if answer is None else bool(answer),
            amount=None if amount is None else int(str(amount)),
        )


class IllegalCommand(Exception):
    """A refused command. `reason` is Chinese, for the player or director; nothing changed."""

    def __init__(self, reason: str, code: str = "illegal") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
