"""``privamp serve``: the privacy-budget planner, a page in the browser over a local JSON API (docs/planner.md).

The page (``static/``: HTML, CSS and hand-written JavaScript that draws its plot as SVG; no network, no build step)
asks the API for its numbers; the API answers ``GET /api/<command>?<options>`` with exactly what
``privamp <command> <options> --json`` prints. The package, one job a module: :mod:`~privamp.serve.api` (a request
as a command line), :mod:`~privamp.serve.worker` (computations in bounded child processes, with a time limit),
:mod:`~privamp.serve.server` (the HTTP server and the page's files), :mod:`~privamp.serve.app` (putting them
together; :func:`~privamp.serve.app.serve`). The command line's ``serve`` command
(:mod:`privamp.cli.serve_parser`) hands in its own parser and entry point, so this package does not import the
command line.
"""
