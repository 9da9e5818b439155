"""A WSGI application that answers with the id of the process serving the request: which
gunicorn process a connection went to (tests/web/test_gunicorn_conf.py)."""
import os


def application(environ, start_response):
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
