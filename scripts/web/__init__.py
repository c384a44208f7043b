"""The local web app of ``kakurega serve``: play on a pictured table, watch bots, step through game records.

:mod:`kakurega.scripts.web.session` holds the games and builds every message a page
is sent (a player's own view only); :mod:`kakurega.scripts.web.app` is the Starlette
server; :mod:`kakurega.scripts.web.connections` bounds the connections below it (a
deadline for request heads, a cap on open connections); ``static/`` holds the page (hand-written HTML, JavaScript and CSS,
nothing fetched from elsewhere). Needs the ``web`` extra:
``pip install 'kakurega[web]'``.
"""
