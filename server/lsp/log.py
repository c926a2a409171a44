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


# `log.error(..., extra=STDERR_ONLY)`: a record for the server's own log only (stderr).
STDERR_ONLY = {"to_editor": False}


class ClientLogHandler(logging.Handler):
    """Sends each record as `window/logMessage`, except when it cannot: the output is closed
    (the editor is gone), or the record was logged while a previous one was being sent (a send
    that fails is reported by logging, which must not send again)."""

    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self._server = server
        self._sending = False

    def emit(self, record: logging.LogRecord) -> None:
        writer = self._server.protocol.writer
        if writer is None or getattr(writer, "closed", False) or self._sending:
            return
        if not getattr(record, "to_editor", True):
            return
        kind = _LEVELS.get(record.levelno, types.MessageType.Log)
        self._sending = True
        try:
            self._server.window_log_message(
                types.LogMessageParams(type=kind, message=self.format(record))
            )
        except Exception:
            self.handleError(record)
        else:
            # The writer drops a write that fails (the editor is gone) without raising.
            record.sent_to_editor = not getattr(writer, "closed", False)
        finally:
            self._sending = False


class NotSentToEditor(logging.Filter):
    """On stderr, only what the editor was not sent: editors show both streams in one place."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, "sent_to_editor", False)


class ExpectedRpcErrors(logging.Filter):
    """Drops pygls' tracebacks for errors we answer on purpose (cancelled, invalid params)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info is None or record.exc_info[1] is None:
            return True
        return not isinstance(record.exc_info[1], JsonRpcRequestCancelled | JsonRpcInvalidParams)


class MessageContentFilter(logging.Filter):
    """pygls writes whole protocol messages (document text included) or tracebacks quoting
    their values into some warnings about malformed input. Keep the event, drop the content.
    `ComplexEditServer.report_server_error` logs the type of each unreadable message."""

    def filter(self, record: logging.LogRecord) -> bool:
        template = record.msg if isinstance(record.msg, str) else ""
        args = record.args if isinstance(record.args, tuple) else ()
        if template == "Unable to handle message":
            return False
        if template.startswith("Unknown message"):
            record.msg, record.args = "Ignored a message that is not JSON-RPC 2.0.", ()
        elif template.startswith("Unable to deserialize message"):
            record.msg, record.args = "Unable to deserialize a message from the editor.", ()
        elif template.startswith("Failed to handle notification") and args:
            record.msg, record.args = "Failed to handle notification %r", args[:1]
        elif template.startswith("Failed to handle request") and len(args) >= 2:
            record.msg, record.args = "Failed to handle request %s %s", args[:2]
        return True


def attach_client_log(server: LanguageServer) -> None:
    logging.getLogger("pygls.protocol.json_rpc").addFilter(ExpectedRpcErrors())
    for name in ("pygls.protocol.json_rpc", "pygls.server"):
        logging.getLogger(name).addFilter(MessageContentFilter())
    handler = ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.getLogger("complex_edit").addHandler(handler)
    for stderr in logging.getLogger().handlers:
        stderr.addFilter(NotSentToEditor())
