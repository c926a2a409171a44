"""Forwards the server's own log records to the client's log (`window/logMessage`)."""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled
from pygls.lsp.server import LanguageServer

_LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
    logging.DEBUG: types.MessageType.Log,
}


class ClientLogHandler(logging.Handler):
    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self._server = server

    def emit(self, record: logging.LogRecord) -> None:
        if self._server.protocol.writer is None:
            return
        kind = _LEVELS.get(record.levelno, types.MessageType.Log)
        try:
            self._server.window_log_message(
                types.LogMessageParams(type=kind, message=self.format(record))
            )
        except Exception:
            self.handleError(record)


class ExpectedRpcErrors(logging.Filter):
    """Drops pygls' tracebacks for errors we answer on purpose (cancelled, invalid params)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info is None or record.exc_info[1] is None:
            return True
        return not isinstance(record.exc_info[1], JsonRpcRequestCancelled | JsonRpcInvalidParams)


def attach_client_log(server: LanguageServer) -> None:
    logging.getLogger("pygls.protocol.json_rpc").addFilter(ExpectedRpcErrors())
    handler = ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.getLogger("complex_edit").addHandler(handler)
