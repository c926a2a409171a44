"""The floor of `bench_mcp_startup.py`: a bare MCP server on the same SDK (`MCPServer`, stdio)
with one tool, nothing else imported."""

from mcp.server.mcpserver import MCPServer

server = MCPServer(name="bare")


@server.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


if __name__ == "__main__":
    server.run()
