"""The API's main shapes as dataclasses, read from its JSON; each keeps the whole answer in `raw`, so a
field the server adds later is never lost."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

T = TypeVar("T", bound="Shape")


@dataclass
class Shape:
    """A JSON object read into a dataclass: known fields by name (missing ones None), nested shapes by `nested`."""

    raw: dict = field(default_factory=dict, repr=False, compare=False)
    nested: ClassVar[dict[str, type]] = {}
    nested_lists: ClassVar[dict[str, type]] = {}

    @classmethod
    def from_dict(cls: type[T], data: dict) -> T:
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name == "raw":
                continue
            value = data.get(f.name)
            if value is not None and f.name in cls.nested:
                value = cls.nested[f.name].from_dict(value)
            elif value is not None and f.name in cls.nested_lists:
                value = [cls.nested_lists[f.name].from_dict(item) for item in value]
            values[f.name] = value
        return cls(raw=dict(data), **values)


@dataclass
class GameState(Shape):
    """A position: 8 columns from bottom to exposed card, 4 cells (card or None), foundations' top ranks."""

    columns: list[list[str]] = None
    cells: list[str | None] = None
    foundations: dict[str, int] = None


@dataclass
class Action(Shape):
    index: int = None
    kind: str = None
    move: str = None
    autoplay: list[str] = None
    at: str = None
    clock_ms: int | None = None


@dataclass
class Game(Shape):
    """The game object; `repeated` and `action` are set on the answer to a move or undo, `board` on a read."""

    id: int = None
    deal: str = None
    player: str = None
    status: str = None
    ply: int = None
    moves: int = None
    undos: int = None
    autoplay: str = None
    ranked: bool = None
    state: GameState = None
    cards_home: int = None
    stuck: bool = None
    version: int = None
    created_at: str = None
    finished_at: str | None = None
    elapsed_ms: int | None = None
    clock_running: bool = None
    board: str | None = None
    repeated: bool | None = None
    action: Action | None = None
    nested: ClassVar[dict[str, type]] = {"state": GameState, "action": Action}


@dataclass
class History(Shape):
    game: int = None
    deal: str = None
    autoplay: str = None
    prelude: list[str] = None
    actions: list[Action] = None
    line: str = None
    nested_lists: ClassVar[dict[str, type]] = {"actions": Action}


@dataclass
class Deal(Shape):
    deal: str = None
    columns: list[list[str]] = None
    board: str = None


@dataclass
class VerifyResult(Shape):
    """`error` is `{index, move, code, message}` when not valid."""

    valid: bool = None
    won: bool = None
    moves: int = None
    error: dict | None = None


@dataclass
class Hint(Shape):
    move: str | None = None
    result: str = None


@dataclass
class LegalMoves(Shape):
    ply: int = None
    moves: list[str] = None


@dataclass
class Racer(Shape):
    username: str = None
    game: int | None = None
    moves: int = None
    cards_home: int = None
    status: str = None
    rank: int | None = None
    elapsed_ms: int | None = None
    ghost: bool = None
    out_of_time: bool = None


@dataclass
class Race(Shape):
    code: str = None
    link: str = None
    deal: str = None
    status: str = None
    owner: str = None
    autoplay: str = None
    racers: list[Racer] = None
    starts_at: str | None = None
    ends_at: str | None = None
    finished_at: str | None = None
    version: int = None
    public: bool = None
    nested_lists: ClassVar[dict[str, type]] = {"racers": Racer}

    def racer(self, username: str) -> Racer | None:
        return next((r for r in self.racers or [] if r.username == username and not r.ghost), None)


@dataclass
class Challenge(Shape):
    """A challenge to race (section 12): `code` is its race's once accepted."""

    id: int = None
    challenger: str = None
    challenged: str = None
    deal: str = None
    status: str = None
    code: str | None = None
    expires_at: str = None


@dataclass
class Daily(Shape):
    date: str = None
    deal: str = None
    par: int | None = None
    players: int = None


@dataclass
class LeaderboardEntry(Shape):
    """A row of a daily's leaderboard or of a deal's records (`game` on the records)."""

    rank: int = None
    username: str = None
    moves: int = None
    undos: int = None
    elapsed_ms: int | None = None
    game: int | None = None


@dataclass
class Leaderboard(Shape):
    entries: list[LeaderboardEntry] = None
    me: dict | None = None
    nested_lists: ClassVar[dict[str, type]] = {"entries": LeaderboardEntry}


@dataclass
class LadderEntry(Shape):
    rank: int = None
    username: str = None
    points: int = None
    played: int = None
    won: int = None


@dataclass
class Ladder(Shape):
    entries: list[LadderEntry] = None
    me: dict | None = None
    nested_lists: ClassVar[dict[str, type]] = {"entries": LadderEntry}


@dataclass
class StreakEntry(Shape):
    rank: int = None
    username: str = None
    current: int = None
    longest: int = None


@dataclass
class Streaks(Shape):
    entries: list[StreakEntry] = None
    me: dict | None = None
    nested_lists: ClassVar[dict[str, type]] = {"entries": StreakEntry}


@dataclass
class Token(Shape):
    """A personal access token; `token` (the secret) only in the answer that creates it."""

    id: int = None
    name: str = None
    scopes: list[str] = None
    created_at: str = None
    last_used_at: str | None = None
    token: str | None = None
    expires_at: str | None = None  # an app's token (OAuth) ends then; None: until revoked


@dataclass
class Page(Shape):
    """One page of a paginated list: `results` already read into the list's shape."""

    count: int = None
    next: str | None = None
    previous: str | None = None
    results: list = None
