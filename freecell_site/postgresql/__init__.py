"""Django's PostgreSQL backend with a pool that hands out no connection the server has closed."""
