"""The 讨论帖: players' posts (a vote post is also the engine's vote; 改票 reply rules), the
director's posts and 代投, group chats, and publishing the 公示 (edit, withhold)."""

from __future__ import annotations

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from ..engine.commands import ABSTAIN, CHANGE_VOTE, CLOSE_PHASE, DIRECTOR, VOTE, Command
from ..engine.model import GameState
from ..engine.view import legal_commands
from ..forum import VoteFormatError, VotePost, parse_vote
from . import schedule as sched
from .errors import NotFound, ServiceError, TooMany
from .holding import Holding, gate_reason, refusal_of
from .models import Announcement, Game, GroupMessage, Post, RefusedPost
from .names import clean_post
from .names import key as name_key
from .notices import (
    DIRECTOR_POST_KIND,
    NOTICE_KIND,
    NOTICE_KINDS,
    NOTICE_PENDING,
    NOTICE_WITHHELD,
    publish_notices,
)
from .published import Publication, announce_indices, revived
from .store import MAX_TEXT, public_announcements


class RefusedSpeech(ServiceError):
    """A post the rules refuse as speech (`Ruleset.check_post`), with the row that keeps it."""

    def __init__(self, reason: str, kept: RefusedPost) -> None:
        super().__init__(reason)
        self.kept = kept


class Thread(Holding):
    """The thread's writes; the pages read it through views.py."""

    def post(
        self,
        game_id: int,
        author: str,
        text: str,
        by_director: bool = False,
        at: str | None = None,
        reply_to: int | None = None,
    ) -> Post:
        """A post in the 讨论帖; a vote post is also the engine's vote (both or neither are stored).
        `reply_to`: the post it replies to (a player's 改票 must reply to his own vote floor). A post
        the rules refuse as speech (癫狂) is refused and kept for the director, never shown."""
        try:
            return self._post(game_id, author, text, by_director, at, reply_to)
        except RefusedSpeech as exc:
            self._keep_refused(exc.kept)
            kept = exc.kept  # kept for the director: it counts against the seat's flood limits too
            self.post_limits.spend(kept.game_id, kept.author, kept.phase, len(kept.text), kept.created_at)
            raise ServiceError(exc.reason) from None

    def _keep_refused(self, row: RefusedPost) -> None:
        """Store a refused post for the director, outside the game's transaction (which was rolled
        back): nothing a player sees changes, no page is woken. A resend of the same text is kept once."""
        with self.sessions() as s:
            last = s.scalars(
                select(RefusedPost)
                .where(RefusedPost.game_id == row.game_id, RefusedPost.author == row.author)
                .order_by(RefusedPost.id.desc())
            ).first()
            if last is not None and last.text == row.text and last.phase == row.phase:
                return
            s.add(row)
            s.commit()

    def _post(
        self,
        game_id: int,
        author: str,
        text: str,
        by_director: bool,
        at: str | None,
        reply_to: int | None,
    ) -> Post:
        body = _text(text)
        # parsed before the game's lock (a pure function of the text); its refusal keeps its place below
        vote: VotePost | None = None
        refused: str | None = None
        try:
            vote = parse_vote(body)
        except VoteFormatError as exc:
            refused = f"投票无效：{exc.reason}"
        with self._tx(game_id) as (s, game):
            self._check_running(game)
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            rs = self.ruleset(game)
            pub = self.publication_of(s, game, state)
            if state.over:
                raise ServiceError("游戏已经结束，讨论帖已关闭")
            if author not in state.chars:
                raise ServiceError(f"{author}不是本局的角色")
            # 诈尸 as the players know it: an out not yet published does not close the thread to him
            if not pub.alive_to(author, None):
                raise ServiceError(f"{author}已出局，不能在讨论帖发言（诈尸）")
            gate = rs.gate(state, Command(author, "post", text=body))
            if gate:
                raise ServiceError(gate)
            now = self.clock()
            if not by_director:  # flood control before anything is stored, a refused speech included
                self._check_flood(s, game, author, pub.label, len(body), now)
            # the speech rules are the player's (癫狂): the director's 代投 is not his speech
            reason = None if by_director else rs.check_post(state, author, body)
            if reason:
                kept = RefusedPost(
                    game_id=game.id,
                    author=author,
                    phase=pub.label,
                    text=body,
                    reason=reason,
                    created_at=self.clock(),
                )
                raise RefusedSpeech(reason, kept)
            if refused is not None:
                raise ServiceError(refused)
            replied = self._replied(s, game, reply_to)
            row = _new_post(game, pub.label, author, body, replied, by_director, now)
            if vote is not None:
                target = self._resolve_target(state, vote.target, author, body, revived(pub, author))
                self._vote(s, game, state, pub, row, Command(author, vote.kind, (target,)), replied, by_director, now)
            stored = _insert(s, row)
            if not by_director:
                self.post_limits.spend(game.id, author, row.phase, len(body), now)
            return stored

    def _vote(
        self,
        s: Session,
        game: Game,
        state: GameState,
        pub: Publication,
        row: Post,
        cmd: Command,
        replied: Post | None,
        by_director: bool,
        now: float,
    ) -> None:
        """A vote post's vote. Judged as the players know the game: a vote for a character whose
        out is not yet published is taken (void: the engine counts it as 弃权, it shows as posted,
        and the voter is told why once the out is published); so is the vote of a voter whose own
        out is not yet published (void, kept by the service alone)."""
        rs = self.ruleset(game)
        author, target = cmd.actor, cmd.targets[0]
        gate = gate_reason(pub, state, cmd, game.timezone)
        if gate:
            raise ServiceError(gate)
        if cmd.skill == CHANGE_VOTE or by_director:
            self._check_change_window(s, game, now, "代投" if by_director else "改票")
        refusal = refusal_of(state, cmd)
        void: str | None = None
        engine_cmd: Command | None = cmd
        if refusal is not None and refusal.code == "actor_out" and not pub.out_known(author, None):
            void = refusal.reason
            engine_cmd = None
            self._void_voter_rules(s, game, state, cmd)
        elif refusal is not None and refusal.code == "target_out" and not pub.out_known(target, author):
            again = refusal_of(revived(pub, author), cmd)
            if again is not None:
                raise ServiceError(again.reason)
            void = refusal.reason
            engine_cmd = Command(author, cmd.skill, (ABSTAIN,))  # counts for no one, like a vote for the out
        elif refusal is not None:
            raise ServiceError(refusal.reason)
        reply_rule = cmd.skill == CHANGE_VOTE and not by_director and sched.policy_for(rs).change_vote_reply
        if reply_rule:  # after the engine's own refusals (no vote yet, one change only, 加速)
            self._check_change_reply(s, game, state, author, replied)
        if engine_cmd is not None:
            self._apply(s, game, state, engine_cmd, "director" if by_director else "player", now)
        row.vote_kind, row.vote_target, row.void = cmd.skill, target, void

    @staticmethod
    def _void_voter_rules(s: Session, game: Game, state: GameState, cmd: Command) -> None:
        """The vote rules the engine would apply to a voter it knows is out and the players do
        not: one vote, one 改票, none while 加速 (the same reasons as the engine's)."""
        posts = s.scalars(
            select(Post.vote_kind).where(
                Post.game_id == game.id,
                Post.author == cmd.actor,
                Post.phase == state.phase.label,
                Post.vote_kind.in_((VOTE, CHANGE_VOTE)),
            )
        ).all()
        if cmd.skill == VOTE and posts:
            raise ServiceError(f"{cmd.actor}今天已经投票，改票请使用改票格式")
        if cmd.skill == CHANGE_VOTE:
            if not posts:
                raise ServiceError(f"{cmd.actor}今天还没有有效投票，不能改票")
            if CHANGE_VOTE in posts:
                raise ServiceError("改票只允许进行一次")
            if state.accelerated:
                raise ServiceError("执行加速时不允许改票")

    @staticmethod
    def _replied(s: Session, game: Game, reply_to: int | None) -> Post | None:
        if reply_to is None:
            return None
        row = s.get(Post, reply_to)
        if row is None or row.game_id != game.id or row.vote_kind in NOTICE_KINDS:
            raise ServiceError("回复的楼层不存在")
        return row

    @staticmethod
    def _check_change_reply(s: Session, game: Game, state: GameState, author: str, replied: Post | None) -> None:
        """Seed 002 改票格式: 改票需回复原投票楼层 — the author's own accepted 投票 post of the day."""
        own = s.scalars(
            select(Post)
            .where(
                Post.game_id == game.id,
                Post.author == author,
                Post.phase == state.phase.label,
                Post.vote_kind == VOTE,
            )
            .order_by(Post.id.desc())
        ).first()
        if own is None:
            raise ServiceError("改票无效：今天还没有有效投票，不能改票")
        if replied is None or replied.id != own.id:
            raise ServiceError("改票无效：改票需回复原投票楼层（请点击自己投票帖下的“改票（回复此楼）”）")

    @staticmethod
    def _resolve_target(
        state: GameState, written: str, voter: str = "", body: str = "", known: GameState | None = None
    ) -> str:
        wanted = name_key(written)
        if wanted == ABSTAIN:
            return ABSTAIN
        for name in state.order:
            if name_key(name) == wanted:
                return name
        reason = f"投票无效：投票对象“{written}”不是本局的角色（弃权请填写“弃权”）"
        # a near miss (雨打芭焦 for 雨打芭蕉) among the targets the rules allow this voter: offered,
        # never applied without the player's click. `known`: the game as the voter may know it
        # (an out not yet published is still a target he may be offered)
        allowed = [
            c.targets[0]
            for c in legal_commands(known or state, voter)
            if c.skill in (VOTE, CHANGE_VOTE) and c.targets
        ]
        near = near_name(written, [n for n in allowed if n != ABSTAIN])
        if near is not None and body:
            raise NearMiss(f"{reason}。你是不是想投：{near}？", near, _corrected(body, written, near))
        raise ServiceError(reason)

    def vote(self, game_id: int, author: str, target: str, reason: str) -> Post:
        """The vote picker's post: `target` chosen from the engine's legal votes, written in the
        forum format (投票对象/投票理由, or 改票 once voted); a 改票 replies to the author's own
        vote floor where the ruleset asks for it (品茗)."""
        target, reason = target.strip(), reason.strip()
        if not target:
            raise ServiceError("请选择投票对象")
        if "\n" in target or len(target) > 64:
            raise ServiceError("投票对象有误")
        with self.lock(game_id):
            game, _state, pub = self.read_published(game_id)
            with self.sessions() as s:
                # his vote posts of the day the players see (a void one counts: it was posted)
                votes = s.scalars(
                    select(Post.id)
                    .where(
                        Post.game_id == game_id,
                        Post.author == author,
                        Post.phase == pub.label,
                        Post.vote_kind.in_((VOTE, CHANGE_VOTE)),
                    )
                    .order_by(Post.id.desc())
                ).all()
                own = s.scalars(
                    select(Post.id)
                    .where(
                        Post.game_id == game_id,
                        Post.author == author,
                        Post.phase == pub.label,
                        Post.vote_kind == VOTE,
                    )
                    .order_by(Post.id.desc())
                ).first()
            word = "改票" if votes else "投票"
            reply_to: int | None = None
            if word == "改票" and sched.policy_for(self.ruleset(game)).change_vote_reply:
                reply_to = own
            text = f"{word}对象：{target}\n{word}理由：{reason}"
            return self.post(game_id, author, text, reply_to=reply_to)

    def _check_change_window(self, s: Session, game: Game, now: float, what: str) -> None:
        minutes = sched.policy_for(self.ruleset(game)).no_change_minutes
        if not minutes:
            return
        close = self.current_deadline(s, game.id)
        if close is not None and close.skill == CLOSE_PHASE and now >= close.due_at - minutes * 60:
            raise ServiceError(f"关门前{minutes // 60 or minutes}{'小时' if minutes >= 60 else '分钟'}不允许{what}")

    def proxy_vote(self, game_id: int, player: str, target: str, at: str | None = None) -> Post:
        """代投: the director posts a player's vote (a clear target, no conditions)."""
        with self.lock(game_id):
            _game, state = self.read(game_id)
            label = "改票" if player in state.votes else "投票"
            text = f"{label}对象：{target}\n{label}理由：导演代投"
            return self.post(game_id, player, text, by_director=True, at=at)

    def director_post(self, game_id: int, text: str, reply_to: int | None = None) -> Post:
        """The director's own post in the 讨论帖 (a rule clarification), marked as his."""
        body = _text(text)
        with self._tx(game_id) as (s, game):
            # a clarification is meant for no phase: `at` is not checked (a phase closing while the
            # director types must not lose his text)
            state = self.state_of(s, game)
            label = self.publication_of(s, game, state).label
            now = self.clock()
            self._check_flood(s, game, DIRECTOR, label, len(body), now)
            replied = self._replied(s, game, reply_to)
            row = _new_post(game, label, DIRECTOR, body, replied, True, now, DIRECTOR_POST_KIND)
            stored = _insert(s, row)
            self.post_limits.spend(game.id, DIRECTOR, row.phase, len(body), now)
            return stored

    def group_post(self, game_id: int, author: str, group: str, text: str) -> GroupMessage:
        body = _text(text)
        with self._tx(game_id) as (s, game):
            self._check_running(game)
            state = self.state_of(s, game)
            pub = self.publication_of(s, game, state)
            if author not in pub.shown.groups.get(group, ()):
                raise ServiceError("你不在这个群里")
            if not pub.alive_to(author, None):
                raise ServiceError(f"{author}已出局，不能在群内发言")
            now = self.clock()
            self._check_flood(s, game, author, state.phase.label, len(body), now)
            row = GroupMessage(
                game_id=game.id,
                group_name=group,
                author=author,
                phase=pub.label,
                text=body,
                created_at=now,
            )
            s.add(row)
            s.flush()
            self.post_limits.spend(game.id, author, row.phase, len(body), now)
            return row

    def _check_flood(self, s: Session, game: Game, author: str, phase: str, size: int, now: float) -> None:
        """Flood control (security.PostLimits): a seat's post rate, and its characters in the thread,
        its groups and its refused speech this phase (counted from the database once per process,
        then kept)."""
        limits = self.post_limits
        if not limits.known(game.id, author, phase):
            chars = 0
            for table in (Post, GroupMessage, RefusedPost):
                chars += int(
                    s.scalar(
                        select(func.coalesce(func.sum(func.length(table.text)), 0)).where(
                            table.game_id == game.id,
                            table.author == author,
                            table.phase == phase,
                        )
                    )
                    or 0
                )
            limits.prime(game.id, author, phase, chars)
        refused = limits.refusal(game.id, author, phase, size, now)
        if refused:
            raise TooMany(refused)

    def publish(self, game_id: int, upto: int, at: str | None = None, only: bool = False) -> int:
        """Publish every pending 公示 up to index `upto`, in order, except the withheld ones; `only`:
        just the one at `upto` (also a withheld one: it is released)."""
        with self._tx(game_id) as (s, game):
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            query = select(Announcement).where(Announcement.game_id == game.id, Announcement.published_at.is_(None))
            if only:
                query = query.where(Announcement.idx == upto)
            else:
                query = query.where(Announcement.idx <= upto, Announcement.withheld.is_(False))
            rows = s.scalars(query).all()
            if not rows:
                raise ServiceError("没有待发布的公示")
            self._check_window(s, game, state, [r.idx for r in rows])
            now = self.clock()
            for row in rows:
                row.published_at = now
                row.withheld = False
            # the service's own notices (替补, 延时) that came before go out with them, in order
            notices = 0 if only else publish_notices(s, game.id, now, max(r.created_at for r in rows))
            if any(r.phase == state.phase.label for r in rows):
                self._start_dawn(s, game, state, now)  # the dawn 公示: the players' day begins
            return len(rows) + notices

    def _pending_notice(self, s: Session, game: Game, post_id: int) -> Post:
        row = s.get(Post, post_id)
        if row is None or row.game_id != game.id or row.vote_kind not in NOTICE_KINDS:
            raise NotFound("没有这条公示")
        if row.vote_kind == NOTICE_KIND:
            raise ServiceError("这条公示已经发布，不能再修改或扣留")
        return row

    def review_notice(self, game_id: int, post_id: int, action: str, text: str = "", at: str | None = None) -> str:
        """The director's review of one of the service's notices (替补, 延时): 发布 (also a
        withheld one), 扣留, 取消扣留, or 修改 (its wording; empty: unchanged)."""
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            row = self._pending_notice(s, game, post_id)
            if action == "publish":
                row.vote_kind, row.created_at = NOTICE_KIND, self.clock()
                return "已发布这条公示"
            if action in ("withhold", "release"):
                wanted = NOTICE_WITHHELD if action == "withhold" else NOTICE_PENDING
                if row.vote_kind == wanted:
                    raise ServiceError("这条公示已经扣留" if action == "withhold" else "这条公示没有被扣留")
                row.vote_kind = wanted
                return "公示已扣留，不会随“发布到此条”发出" if action == "withhold" else "公示已放回待发布"
            if action == "edit":
                body = text.strip()
                if len(body) > MAX_TEXT:
                    raise ServiceError(f"公示过长（最多{MAX_TEXT}字）")
                if not body:
                    raise ServiceError("公示不能为空")
                row.text = body
                return "公示已修改（发布前仍可再改）"
            raise ServiceError("未知的操作")

    def publish_dawn(self, game_id: int, at: str | None = None) -> str:
        """发布黎明公示: every pending 公示 not withheld goes out and the players' day begins."""
        with self._tx(game_id) as (s, game):
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            if not self._awaiting_dawn(game, state):
                raise ServiceError("现在没有等待发布的黎明公示")
            now = self.clock()
            self._publish_pending(s, game, now)
            self._start_dawn(s, game, state, now)
            return state.phase.label

    def _check_window(self, s: Session, game: Game, state: GameState, indices: list[int]) -> None:
        """What a close settled is published only once its settling window has run (else the
        time of the 公示 would tell whether a prompt was pending)."""
        if game.held_log is None:
            return
        marks = announce_indices(state)
        held = [idx for idx in indices if idx < len(marks) and marks[idx] >= game.held_log]
        if held:
            row = self.current_deadline(s, game.id)
            until = sched.local_text(row.due_at, sched.zone(game.timezone)) if row is not None else "结算窗口结束"
            raise ServiceError(
                f"这是本次结算的公示，结算窗口（至 {until}）结束后才能发布："
                "提前发布会让玩家从时间上推断是否有待回应的技能"
            )

    def _pending_announcement(self, s: Session, game: Game, idx: int) -> Announcement:
        row = s.scalar(select(Announcement).where(Announcement.game_id == game.id, Announcement.idx == idx))
        if row is None:
            raise NotFound("没有这条公示")
        if row.published_at is not None:
            raise ServiceError("这条公示已经发布，不能再修改或扣留")
        return row

    def edit_announcement(self, game_id: int, idx: int, text: str, at: str | None = None) -> None:
        """The director's wording replaces the engine's in the thread (the engine's text stays in
        the log and the export); an empty text restores the engine's."""
        body = clean_post(text).strip()
        if len(body) > MAX_TEXT:
            raise ServiceError(f"公示过长（最多{MAX_TEXT}字）")
        with self._tx(game_id) as (s, game):
            state = self.state_of(s, game)
            self._check_at(game, state, at)
            row = self._pending_announcement(s, game, idx)
            anns = public_announcements(state)
            original = anns[idx].text if idx < len(anns) else ""
            row.text = body if body and body != original else None

    def withhold(self, game_id: int, idx: int, withheld: bool, at: str | None = None) -> None:
        """扣留 a pending 公示 (not published by 发布到此条, kept) or take it back into the queue."""
        with self._tx(game_id) as (s, game):
            self._check_at(game, self.state_of(s, game), at)
            row = self._pending_announcement(s, game, idx)
            if row.withheld == withheld:
                raise ServiceError("这条公示已经扣留" if withheld else "这条公示没有被扣留")
            row.withheld = withheld


class NearMiss(ServiceError):
    """A vote for a name that is not in the game but close to one the voter may vote for: the
    refusal carries the suggestion and the post's text with it (for the player to confirm)."""

    def __init__(self, reason: str, suggestion: str, corrected: str) -> None:
        super().__init__(reason)
        self.suggestion = suggestion
        self.corrected = corrected


def near_name(written: str, names: list[str]) -> str | None:
    """The one name `written` most likely meant: one character off for names up to five
    characters (two for longer ones), or a part of it at least two characters long; None when
    nothing is that close or two names are equally close."""
    wanted = name_key(written)
    if not wanted:
        return None
    scored: list[tuple[int, str]] = []
    for name in names:
        key = name_key(name)
        distance = _edits(wanted, key)
        if distance <= (1 if len(key) <= 5 else 2) or (len(wanted) >= 2 and (wanted in key or key in wanted)):
            scored.append((distance, name))
    if not scored:
        return None
    scored.sort()
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        return None
    return scored[0][1]


def _edits(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def _corrected(body: str, written: str, name: str) -> str:
    """The post with its vote target replaced (the first `written` after the label's 对象)."""
    at = body.find(written, max(0, body.find("对象")))
    if at < 0:
        return body
    return body[:at] + name + body[at + len(written) :]


def _text(text: str) -> str:
    """A post's body: not empty, not overlong, no NUL (PostgreSQL refuses it in text); bidi controls
    and stacked combining marks removed (names.clean_post)."""
    body = clean_post(text).strip()
    if not body:
        raise ServiceError("发言内容不能为空")
    if len(body) > MAX_TEXT:
        raise ServiceError(f"发言过长（最多{MAX_TEXT}字）")
    if "\x00" in body:
        raise ServiceError("发言含有不允许的控制字符（NUL）")
    return body


def _insert(s: Session, row: Post) -> Post:
    """Store a new post with one Core INSERT (issue 13: no ORM unit of work on the hot path); the
    row keeps every column it was built with and gets its id."""
    values = {key: getattr(row, key) for key in _POST_COLUMNS}
    row.id = int(s.scalar(_INSERT_POST, values) or 0)
    return row


_POST_COLUMNS = tuple(c.key for c in Post.__table__.columns if c.key != "id")
_INSERT_POST = insert(Post).returning(Post.id)  # built once (issue 26); the values are its parameters


def _new_post(
    game: Game,
    label: str,
    author: str,
    body: str,
    replied: Post | None,
    by_director: bool,
    now: float,
    kind: str | None = None,
) -> Post:
    """A thread post in the phase the players see (`label`; `kind`: a vote's kind is set once it
    was taken; the director's own post is DIRECTOR_POST_KIND)."""
    return Post(
        game_id=game.id,
        author=author,
        phase=label,
        text=body,
        vote_kind=kind,
        vote_target=None,
        by_director=by_director,
        created_at=now,
        reply_to=replied.id if replied is not None else None,
    )
