from tests.support.pgfixtures import new_database, pg_env, pg_server  # noqa: F401
