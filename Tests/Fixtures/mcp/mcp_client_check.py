"""Drives `efferent mcp` with the official MCP Python SDK (PyPI `mcp`), as an agent's client would.

Usage: python3 mcp_client_check.py EFFERENT_BINARY EFFERENT_HOME [SINCE UNTIL [MCP_URL TOKEN]]
With MCP_URL (the `/mcp` of an `efferent dashboard` on that home) the same questions are also
asked over Streamable HTTP with the token as a bearer header, under "http" in the output.
Prints one JSON object with what the client saw; the Swift test (NothingSilentTests) judges it.
Exits 2 with a sentence when the SDK cannot be imported: the test then fails, it never skips.
"""

import asyncio
import json
import sys

try:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
    try:
        from mcp.shared.exceptions import MCPError  # SDK 2.x
    except ImportError:
        from mcp.shared.exceptions import McpError as MCPError  # SDK 1.x
except ImportError as error:  # pragma: no cover - reported to the Swift test
    print(f"the MCP Python SDK is not installed ({error}); scripts/test installs it (pip install mcp)", file=sys.stderr)
    sys.exit(2)


def attr(value, *names):
    """The first of `names` the object has (SDK 2.x is snake_case, 1.x camelCase)."""
    for name in names:
        if hasattr(value, name):
            return getattr(value, name)
    return None


def text_of(result):
    return "".join(getattr(item, "text", "") for item in result.content)


async def check(binary, home, since, until):
    params = StdioServerParameters(command=binary, args=["mcp"], env={"EFFERENT_HOME": home, "PATH": "/usr/bin:/bin"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            return await questions(session, since, until)


async def check_http(url, token, since, until):
    """The same questions over Streamable HTTP, the token as a bearer header; and one without it."""
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                seen = await questions(session, since, until)
    async with create_mcp_http_client() as client:
        answer = await client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                   headers={"Accept": "application/json, text/event-stream"})
        seen["withoutToken"] = {"status": answer.status_code, "body": answer.text[:300]}
    return seen


async def questions(session, since, until):
    seen = {}
    await session.initialize()
    tools = (await session.list_tools()).tools
    seen["tools"] = {
        tool.name: {
            "annotations": tool.annotations.model_dump(exclude_none=True, by_alias=True) if tool.annotations else None,
            "properties": sorted((attr(tool, "input_schema", "inputSchema").get("properties") or {}).keys()),
            "metricEnum": ((attr(tool, "input_schema", "inputSchema").get("properties") or {}).get("metric") or {}).get("enum"),
            "outputSchema": bool(attr(tool, "output_schema", "outputSchema")),
        }
        for tool in tools
    }

    async def call(name, arguments):
        try:
            result = await session.call_tool(name, arguments)
            return {"isError": bool(attr(result, "is_error", "isError")), "text": text_of(result),
                    "structured": attr(result, "structured_content", "structuredContent") is not None}
        except MCPError as error:
            return {"rpcError": error.error.code, "text": error.error.message}

    seen["groupBy"] = await call("phone_data_statistics", {"metric": "steps", "groupby": "week"})
    # One spelling across the API and MCP (groupBy); the older group_by is taken with a note (issue 41).
    seen["groupByCamel"] = await call("phone_data_statistics", {"metric": "steps", "groupBy": "week", "since": since, "until": until})
    seen["metricsAsString"] = await call("phone_data_daily", {"metrics": "steps"})
    seen["unknownMetric"] = await call("phone_data_samples", {"metric": "stepz"})
    seen["unknownTool"] = await call("phone_data_everything", {})
    seen["good"] = await call("phone_data_statistics", {"metric": "steps", "group_by": "week", "since": since, "until": until})
    seen["longDaily"] = await call("phone_data_daily", {"metrics": ["steps"], "since": "2016-01-01", "until": until})
    # The tools beyond the answers (issue 30): each checked by the Swift test against the CLI's figures.
    seen["dailySteps"] = await call("phone_data_daily", {"metrics": ["steps"], "since": since, "until": until})
    seen["latest"] = await call("phone_data_latest", {"metrics": ["heartRate", "steps"]})
    seen["rings"] = await call("phone_data_rings", {"since": since, "until": until})
    seen["stateOfMind"] = await call("phone_data_state_of_mind", {"since": since, "until": until})
    seen["compare"] = await call("phone_data_compare", {"metric": "steps", "first": {"since": since, "until": until},
                                                         "second": {"since": since, "until": until}})
    seen["compareWorkouts"] = await call("phone_data_compare", {"metric": "workouts", "first": {"since": since, "until": until},
                                                                "second": {"since": since, "until": since}})
    workouts = await call("phone_data_workouts", {"since": since, "until": until})
    seen["workouts"] = workouts
    listed = json.loads(workouts["text"]) if not workouts.get("isError") else {"rows": []}
    columns = listed.get("columns", [])
    with_route = [dict(zip(columns, row)) for row in listed.get("rows", [])]
    with_route = [w for w in with_route if w.get("routeFixes")]
    if with_route:
        seen["workoutRow"] = with_route[0]
        seen["workout"] = await call("phone_data_workout", {"start": with_route[0]["start"]})
    seen["noWorkout"] = await call("phone_data_workout", {"start": "2001-01-01T00:00:00Z"})
    resources = (await session.list_resources()).resources
    seen["resources"] = [str(resource.uri) for resource in resources]
    guide = await session.read_resource("efferent://guide")
    seen["guide"] = "".join(getattr(content, "text", "") for content in guide.contents)
    return seen


async def missing_profile(binary):
    params = StdioServerParameters(command=binary, args=["mcp"], env={"EFFERENT_HOME": "/nonexistent/efferent-home", "PATH": "/usr/bin:/bin"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            try:
                await session.initialize()
                await session.list_tools()
                return {"error": None}
            except MCPError as error:
                return {"error": error.error.message, "code": error.error.code}


def main():
    binary, home = sys.argv[1], sys.argv[2]
    since, until = (sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 else ("2025-06-01", "2025-06-14")
    seen = asyncio.run(check(binary, home, since, until))
    seen["missingProfile"] = asyncio.run(missing_profile(binary))
    if len(sys.argv) > 6:
        seen["http"] = asyncio.run(check_http(sys.argv[5], sys.argv[6], since, until))
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
