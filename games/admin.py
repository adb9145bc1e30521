"""Admin pages for deals, games (with their read-only histories), dailies, races and challenges, the boards and fair play."""

from django.contrib import admin

from freecell_site.admin_selection import CheckedSelection
from games.admin_daily import clear_review_action, reject_review_action
from games.daily.models import daily_game_of
from games.models import (
    Action,
    Challenge,
    DailyChallenge,
    DailyGame,
    DailyMovesTally,
    DailyResult,
    DailySpanTally,
    Deal,
    DealRecord,
    Game,
    LadderDay,
    LadderEntry,
    LadderTally,
    LongestTally,
    Race,
    RaceEntry,
    RaceInvite,
    RecordSpanTally,
    RecordTally,
    Report,
    ReviewCase,
    Streak,
    StreakTally,
)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ActionInline(ReadOnlyInline):
    model = Action
    fields = ["index", "kind", "notation", "autoplay", "client_id", "via", "created_at"]
    readonly_fields = fields


class ServiceMadeAdmin(CheckedSelection, admin.ModelAdmin):
    """Rows only the services make and change (deals, games, dailies, races): shown with every field
    read-only and no "Add" (an add form of read-only required fields cannot be saved; an editable field
    would let the admin put a race or a game in a state the rules never make). Deleting stays possible."""

    def has_add_permission(self, request):
        return False

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]


@admin.register(Deal)
class DealAdmin(ServiceMadeAdmin):
    list_display = ["id", "created_at"]
    search_fields = ["id"]


@admin.register(Game)
class GameAdmin(ServiceMadeAdmin):
    list_display = ["id", "player", "deal", "daily", "status", "ply", "undos", "elapsed_ms", "review", "created_at"]
    list_filter = ["status", "autoplay", "review", "daily_game__daily"]
    list_select_related = ["player", "deal", "daily_game"]
    search_fields = ["player__username", "deal__id"]
    raw_id_fields = ["player", "deal"]
    # Everything is derived from the validated history: not editable here. The review verdict is given
    # by the actions below, which also keep the leaderboard in step.
    inlines = [ActionInline]
    actions = [clear_review_action, reject_review_action]

    @admin.display(description="daily", ordering="daily_game__daily")
    def daily(self, game):
        """The daily a game is played as (games.daily.models.DailyGame): ranked, or a past one's casual game."""
        row = daily_game_of(game)
        return None if row is None else f"{row.daily_id}{' (ranked)' if row.ranked else ''}"


class ReadOnlyAdmin(CheckedSelection, admin.ModelAdmin):
    """Derived or historical rows: shown, never written from the admin."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Action)
class ActionAdmin(ReadOnlyAdmin):
    list_display = ["game", "index", "kind", "notation", "created_at"]
    search_fields = ["game__id"]


@admin.register(DailyGame)
class DailyGameAdmin(ReadOnlyAdmin):
    list_display = ["game", "daily", "player", "ranked"]
    list_filter = ["ranked", "daily"]
    search_fields = ["player__username"]


@admin.register(DailyResult)
class DailyResultAdmin(ReadOnlyAdmin):
    list_display = ["daily", "player", "moves", "undos", "elapsed_ms", "finished_at", "game"]
    list_filter = ["daily"]
    search_fields = ["player__username"]


@admin.register(DailyMovesTally)
class DailyMovesTallyAdmin(ReadOnlyAdmin):
    list_display = ["daily", "moves", "count"]
    list_filter = ["daily"]


@admin.register(DailySpanTally)
class DailySpanTallyAdmin(ReadOnlyAdmin):
    list_display = ["daily", "moves", "span", "count"]
    list_filter = ["daily"]


# The boards (games/boards): derived from won games by the winning move and by `rebuild_boards`.
@admin.register(DealRecord)
class DealRecordAdmin(ReadOnlyAdmin):
    list_display = ["deal", "autoplay", "player", "moves", "undos", "elapsed_ms", "finished_at", "game"]
    list_filter = ["autoplay"]
    search_fields = ["deal", "player__username"]


@admin.register(RecordTally)
class RecordTallyAdmin(ReadOnlyAdmin):
    list_display = ["deal", "autoplay", "moves", "count"]
    search_fields = ["deal"]


@admin.register(RecordSpanTally)
class RecordSpanTallyAdmin(ReadOnlyAdmin):
    list_display = ["deal", "autoplay", "bot", "moves", "span", "count"]
    search_fields = ["deal"]


@admin.register(LadderDay)
class LadderDayAdmin(ReadOnlyAdmin):
    list_display = ["date", "player", "won", "points"]
    list_filter = ["date"]
    search_fields = ["player__username"]


@admin.register(LadderEntry)
class LadderEntryAdmin(ReadOnlyAdmin):
    list_display = ["month", "player", "points", "played", "won"]
    list_filter = ["month"]
    search_fields = ["player__username"]


@admin.register(LadderTally)
class LadderTallyAdmin(ReadOnlyAdmin):
    list_display = ["month", "points", "count"]
    list_filter = ["month"]


@admin.register(Streak)
class StreakAdmin(ReadOnlyAdmin):
    list_display = ["player", "last_day", "current", "longest"]
    search_fields = ["player__username"]


@admin.register(StreakTally)
class StreakTallyAdmin(ReadOnlyAdmin):
    list_display = ["last_day", "current", "longest", "count"]


@admin.register(LongestTally)
class LongestTallyAdmin(ReadOnlyAdmin):
    list_display = ["longest", "count"]


@admin.register(DailyChallenge)
class DailyChallengeAdmin(ServiceMadeAdmin):
    """Made by `manage.py daily --ensure` (or the first request of the day), proven solvable."""

    list_display = ["date", "deal", "par", "seed_index", "created_at"]


class RaceEntryInline(ReadOnlyInline):
    model = RaceEntry
    fields = ["player", "game", "rank", "joined_at"]
    readonly_fields = fields


@admin.register(Race)
class RaceAdmin(ServiceMadeAdmin):
    list_display = ["code", "deal", "owner", "status", "starts_at", "created_at"]
    list_filter = ["status"]
    search_fields = ["code", "owner__username"]
    raw_id_fields = ["owner", "deal", "rematch_of", "ghost_of"]
    inlines = [RaceEntryInline]

    def has_delete_permission(self, request, obj=None):
        # A race under way is not deleted: its racers' games would go on as casual games, their
        # race pages gone. Open and finished races may go.
        if obj is not None and obj.status in (Race.Status.COUNTDOWN, Race.Status.RUNNING):
            return False
        return super().has_delete_permission(request, obj)

    def get_actions(self, request):
        # The list's bulk delete asks no race whether it is under way: races go one at a time.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


@admin.register(RaceEntry)
class RaceEntryAdmin(ServiceMadeAdmin):
    list_display = ["race", "player", "game", "rank"]
    raw_id_fields = ["race", "player", "game"]


@admin.register(RaceInvite)
class RaceInviteAdmin(ServiceMadeAdmin):
    list_display = ["race", "invited", "invited_by", "created_at"]
    raw_id_fields = ["race", "invited", "invited_by"]


@admin.register(Challenge)
class ChallengeAdmin(ServiceMadeAdmin):
    list_display = ["challenger", "challenged", "deal", "status", "race", "created_at", "expires_at"]
    list_filter = ["status"]
    search_fields = ["challenger__username", "challenged__username"]
    raw_id_fields = ["challenger", "challenged", "deal", "past_daily", "race"]


@admin.register(ReviewCase)
class ReviewCaseAdmin(ReadOnlyAdmin):
    """Review cases, read-only here: verdicts go through /staff/reviews/ or the games' admin actions."""

    list_display = ["game", "opened_at", "decided_at", "moderator", "by_mark"]
    list_filter = ["by_mark"]


@admin.register(Report)
class ReportAdmin(ReadOnlyAdmin):
    list_display = ["game", "reporter", "reason", "created_at"]
