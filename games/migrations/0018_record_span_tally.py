"""Deal records get the daily leaderboard's second level for their crowded move counts
(games.boards.models.RecordSpanTally): the move counts already holding 256 lines or more on a board are
split by spans of 10 s of elapsed time, by one INSERT ... SELECT (no row passes through Python). The
numbers are the model's SPLIT_FROM and SPAN_MS as this migration was written."""

from django.db import migrations, models


def split_crowded_move_counts(apps, schema_editor):
    records, tallies, spans = (apps.get_model("games", name)._meta for name in ("DealRecord", "RecordTally", "RecordSpanTally"))
    quote = schema_editor.quote_name
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {quote(spans.db_table)} (deal, autoplay, bot, moves, span, count) "
            f"SELECT r.deal, r.autoplay, r.bot, r.moves, r.elapsed_ms / 10000, COUNT(*) FROM {quote(records.db_table)} r "
            f"JOIN {quote(tallies.db_table)} t ON t.deal = r.deal AND t.autoplay = r.autoplay AND t.bot = r.bot AND t.moves = r.moves "
            "WHERE t.count >= 256 GROUP BY r.deal, r.autoplay, r.bot, r.moves, r.elapsed_ms / 10000"
        )


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0017_daily_game'),
    ]

    operations = [
        migrations.CreateModel(
            name='RecordSpanTally',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('deal', models.CharField(max_length=40)),
                ('autoplay', models.CharField(choices=[('none', 'None'), ('safe', 'Safe')], max_length=4)),
                ('bot', models.BooleanField(db_default=False, default=False)),
                ('moves', models.PositiveIntegerField()),
                ('span', models.PositiveBigIntegerField()),
                ('count', models.PositiveIntegerField(default=0)),
            ],
            options={
                'indexes': [models.Index(fields=['deal', 'autoplay', 'bot', 'moves', 'span', 'count'], name='record_span_tally_sum')],
                'constraints': [models.UniqueConstraint(fields=('deal', 'autoplay', 'bot', 'moves', 'span'), name='one_record_span_tally')],
            },
        ),
        migrations.RunPython(split_crowded_move_counts, migrations.RunPython.noop),
    ]
