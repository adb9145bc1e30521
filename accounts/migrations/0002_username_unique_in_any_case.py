"""Usernames unique in any case in the database too: sign-up's "taken" check runs before the insert, so
two sign-ups at the same instant as `alice` and `Alice` could both pass it. With this index the second
insert fails and `accounts.services.register` answers "that username is taken".

LOWER folds ASCII letters on every database (SQLite folds only those), and new usernames are ASCII.
A database that already holds two names differing only in case cannot take the index: this migration
then fails on the unique index until one of them is renamed.
"""

from django.db import migrations

INDEX = "accounts_username_any_case"


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunSQL(
            sql=f"CREATE UNIQUE INDEX {INDEX} ON auth_user (LOWER(username))",
            reverse_sql=f"DROP INDEX {INDEX}",
        ),
    ]
