"""Drive a verl export's agent loop with verl's own MCP client code, in verl's threading pattern.

usage: verl_mcp_clients_check.py VERL_SRC EXPORT_DIR PLAN_JSON OUT_JSON

VERL_SRC is a verl source tree (its verl/ folder): verl's tool registry (initialize_tools_from_config: a
temporary event loop and thread per listing, closed after it), MCPBaseTool, ClientManager
(verl.tools.utils.mcp_clients: one fastmcp Client for every loop, a session per call) and FunctionCall /
ToolResponse run as they are. What is not run is what no MCP traffic passes through and what needs a GPU
stack: verl's package __init__ files (DataProto: torch 2, tensordict, ray) and ToolAgentLoop's LLM side
(vLLM / SGLang). In their place a ToolAgentLoop stand-in does what verl's does around tools: __init__ lists
them with initialize_tools_from_config (verl builds one loop object per trajectory, inside its worker's
running event loop), run() makes the model's calls through self._call_tool.

PLAN_JSON: {"batches": [[{task_id, seed, calls: [[name, args]...], answer}, ...], ...], "verl_calls": bool}.
Each batch is one AgentLoopWorker step: its trajectories run at once on the worker's event loop, which lives
in a thread of its own for all batches (a Ray async actor keeps one loop). With verl_calls, one more
trajectory goes through verl's own call path (MCPBaseTool.execute -> ClientManager.call_tool, a new session
per call), start_task and finish included. A server entry of mcp_servers.json may carry "keep_alive"
(fastmcp's stdio transport option; its config schema keeps the key but does not pass it on): honoured here.
OUT_JSON gets every trajectory's finish result and score, the listings, clients, and versions.
"""

import asyncio
import json
import os
import sys
import threading
import types


def stub_packages(src):
    """verl's packages whose __init__ files import DataProto or the LLM stack, as bare packages over the source tree."""
    for name in ("verl", "verl.utils", "verl.experimental", "verl.experimental.agent_loop"):
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(src, *name.split("."))]
        sys.modules[name] = module
    # verl.utils.ray_utils imports ray at its top; get_event_loop, all rollout_trace takes from it, is asyncio.
    sys.modules.setdefault("ray", types.ModuleType("ray"))


def honour_keep_alive():
    from fastmcp import mcp_config

    to_transport = mcp_config.StdioMCPServer.to_transport

    def with_keep_alive(self):
        transport = to_transport(self)
        extra = getattr(self, "model_extra", None) or {}
        if "keep_alive" in extra:
            transport.keep_alive = bool(extra["keep_alive"])
        return transport

    mcp_config.StdioMCPServer.to_transport = with_keep_alive


LISTINGS = []  # (thread name, loop closed afterwards) per verl listing


def stand_in_agent_loop(folder):
    """verl.experimental.agent_loop's two modules envace_verl imports, around verl's real tool code."""
    from verl.experimental.agent_loop.tool_parser import FunctionCall
    from verl.tools.schemas import ToolResponse
    from verl.tools.utils import tool_registry

    registry = {}
    agent_loop = types.ModuleType("verl.experimental.agent_loop.agent_loop")

    def register(name):
        def wrap(cls):
            registry[name] = cls
            return cls

        return wrap

    agent_loop.register = register
    tool_agent_loop = types.ModuleType("verl.experimental.agent_loop.tool_agent_loop")

    def initialize_tools_from_config(path):
        loops = []
        new_event_loop = asyncio.new_event_loop

        def recording():
            loops.append(new_event_loop())
            return loops[-1]

        asyncio.new_event_loop = recording
        try:
            tools = tool_registry.initialize_tools_from_config(path)
        finally:
            asyncio.new_event_loop = new_event_loop
        LISTINGS.append({"temporary_loops": len(loops), "closed": all(loop.is_closed() for loop in loops)})
        return tools

    class Data:
        def __init__(self, messages):
            self.messages, self.response_ids = messages, []

    class Output:
        def __init__(self):
            self.extra_fields = {}

    class Tokenizer:
        @staticmethod
        def decode(ids, skip_special_tokens=False):
            return "".join(ids)

    class ToolAgentLoop:
        def __init__(self, *args, **kwargs):
            tool_list = tool_agent_loop.initialize_tools_from_config(os.path.join(folder, "tool_config.yaml"))
            self.tools = {tool.name: tool for tool in tool_list}
            self.tool_schemas = [tool.tool_schema.model_dump(exclude_unset=True, exclude_none=True) for tool in tool_list]
            self.max_tool_response_length = 100000
            self.loop = asyncio.get_running_loop()
            self.tokenizer = Tokenizer()
            self.script = kwargs.get("script", [])
            self.answer = kwargs.get("answer")
            self.observations = []

        async def _handle_pending_state(self, agent_data, sampling_params):
            return "generating"

        async def _call_tool(self, tool_call, tools_kwargs, agent_data):
            raise NotImplementedError("envace_verl overrides it")

        async def run(self, sampling_params, **kwargs):
            data = Data(list(kwargs["raw_prompt"]))
            await self._handle_pending_state(data, sampling_params)
            for name, args in self.script:
                response, _, _ = await self._call_tool(FunctionCall(name=name, arguments=json.dumps(args)), {}, data)
                self.observations.append(response.text)
            if self.answer is not None:
                data.response_ids = ["<answer>", self.answer, "</answer>"]
            return Output()

    tool_agent_loop.initialize_tools_from_config = initialize_tools_from_config
    tool_agent_loop.ToolAgentLoop = ToolAgentLoop
    sys.modules["verl.experimental.agent_loop.agent_loop"] = agent_loop
    sys.modules["verl.experimental.agent_loop.tool_agent_loop"] = tool_agent_loop
    return registry, ToolResponse


async def trajectory(registry, envace_verl, plan):
    # verl instantiates the agent loop inside the worker's running loop, one object per trajectory.
    loop = registry["envace_tool_agent"](script=plan["calls"], answer=plan.get("answer"))
    output = await loop.run({}, raw_prompt=[{"role": "user", "content": "task"}], extra_info={"task_id": plan["task_id"], "seed": plan["seed"]})
    finished = json.loads(output.extra_fields[envace_verl.FINISH_FIELD])
    return {
        "task_id": plan["task_id"],
        "episode_id": loop.episode_id,
        "tools": sorted(loop.tools),
        "errors": [text for text in loop.observations if text.startswith("Error")],
        "finish": finished,
        "score": envace_verl.compute_score("envace", "", plan["task_id"], {envace_verl.FINISH_FIELD: output.extra_fields[envace_verl.FINISH_FIELD]}),
    }


async def verl_call_path(tools, plan):
    """One trajectory the way verl's ToolAgentLoop._call_tool runs it: MCPBaseTool create/execute/release."""

    async def call(name, args):
        tool = tools[name]
        instance_id, _ = await tool.create()
        try:
            response, _, metrics = await tool.execute(instance_id, args)
        finally:
            await tool.release(instance_id)
        return response.text, metrics.get("api_request_error")

    text, error = await call("start_task", {"task_id": plan["task_id"], "seed": plan["seed"]})
    if error:
        return {"error": error}
    episode_id = json.loads(text)["episode_id"]
    errors = []
    for name, args in plan["calls"]:
        text, error = await call(name, {**args, "episode_id": episode_id})
        if error or text.startswith("Error"):
            errors.append(error or text)
    text, error = await call("finish", {"episode_id": episode_id, **({"answer": plan["answer"]} if plan.get("answer") is not None else {})})
    return {"episode_id": episode_id, "errors": errors, "finish_error": error, "finish": None if error else json.loads(text)}


def main():
    src, folder, plan_path, out_path = sys.argv[1:5]
    with open(plan_path) as f:
        plan = json.load(f)
    stub_packages(src)
    honour_keep_alive()
    registry, _ = stand_in_agent_loop(folder)
    sys.path.insert(0, folder)
    import envace_verl
    import fastmcp
    import mcp
    from verl.tools.utils.mcp_clients.McpClientManager import ClientManager

    if envace_verl._MISSING is not None:
        raise envace_verl._MISSING

    worker = asyncio.new_event_loop()
    thread = threading.Thread(target=worker.run_forever, name="agent loop worker", daemon=True)
    thread.start()
    timeout = float(os.environ.get("VERL_CHECK_TIMEOUT_S", "600"))

    def on_worker(coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, worker).result(timeout)

    result = {"batches": [], "versions": {"fastmcp": fastmcp.__version__, "mcp": getattr(mcp, "__version__", None)}}
    async def step(batch):
        return list(await asyncio.gather(*(trajectory(registry, envace_verl, t) for t in batch)))

    for batch in plan["batches"]:
        result["batches"].append(on_worker(step(batch)))
    result["listings"] = LISTINGS
    result["clients"] = len(ClientManager.clients)
    if plan.get("verl_calls"):
        from verl.tools.utils.tool_registry import initialize_tools_from_config

        tools = {tool.name: tool for tool in initialize_tools_from_config(os.path.join(folder, "tool_config.yaml"))}
        result["verl_calls"] = on_worker(verl_call_path(tools, plan["batches"][0][0]))
    worker.call_soon_threadsafe(worker.stop)
    thread.join(10)
    with open(out_path, "w") as f:
        json.dump(result, f)
    # fastmcp's stdio transports keep their servers until the process exits; end it here, not at interpreter teardown.
    os._exit(0)


if __name__ == "__main__":
    main()
