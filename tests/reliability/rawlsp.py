"""The raw-bytes LSP client of the reliability suite. It lives in ``tests/fakes/rawlsp.py``
(shared with ``bench/``); this module keeps the suite's import path."""

from __future__ import annotations

from tests.fakes.lsp_positions import offset_to_position as offset_to_position
from tests.fakes.lsp_positions import position_to_offset as position_to_offset
from tests.fakes.rawlsp import EDITOR_CAPABILITIES as EDITOR_CAPABILITIES
from tests.fakes.rawlsp import ROOT as ROOT
from tests.fakes.rawlsp import SERVER_COMMAND as SERVER_COMMAND
from tests.fakes.rawlsp import Doc as Doc
from tests.fakes.rawlsp import RawLspClient as RawLspClient
from tests.fakes.rawlsp import RpcError as RpcError
from tests.fakes.rawlsp import frame as frame
from tests.fakes.rawlsp import server_env as server_env
