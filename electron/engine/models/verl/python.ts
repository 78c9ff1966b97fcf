// envace_verl.py, the Python side of a verl export: an agent loop over verl's ToolAgentLoop that opens
// one `envace mcp serve` episode per trajectory and closes it with `finish`, the client it reaches the
// server with (one per event loop, its session held open: verl's own shares one across loops), and the
// reward function that scores a trajectory by that `finish` result. The reward function must import
// without verl or fastmcp (it is tested with a bare python3), so those imports are guarded, and a
// missing one is raised with its cause when the agent loop is built.

export const PYTHON_MODULE = 'envace_verl';

export const ENVACE_VERL_PY = String.raw`"""EnvACE environments in verl's multi-turn agent loop (written by envace export --format verl).

One trajectory is one episode of envace mcp serve:
  start_task(task_id, seed)  when the trajectory starts (ids from the dataset row's extra_info);
  the env's own tools        for every tool call the model makes (this episode's id added);
  finish(answer)             when the trajectory ends (the last act's text, if it made no call).
The finish result (checklist reward, end-state check) travels in the agent loop's extra fields to
compute_score, the reward function, which needs nothing but the standard library.
"""

import asyncio
import json
import os
import re
import threading

EPISODE_TOOLS = ("start_task", "finish", "list_tasks")
EPISODE_ID = "episode_id"
FINISH_FIELD = "envace_finish"
ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S)
REWARD_KEYS = ("score", "success", "format_error", "finished", "task_matches")
# The folder's mcp_servers.json (stdio or a url), unless ENVACE_MCP_SERVERS names another file.
SERVERS_FILE = os.environ.get("ENVACE_MCP_SERVERS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp_servers.json")
# verl waits on a tool call without a limit; a server that stops answering must fail the trajectory, not hang training.
CALL_TIMEOUT_S = float(os.environ.get("ENVACE_MCP_TIMEOUT_S", "300"))


def finish_result(value):
    """The finish tool's result as a dict (it arrives as the JSON text the server sent), or None."""
    if isinstance(value, (bytes, str)):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if isinstance(value, dict) and isinstance(value.get("reward"), (int, float)):
        return value
    return None


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's custom reward function: the checklist reward finish gave this trajectory's episode.

    Every call returns the same keys (verl stacks them into per-sample arrays). A trajectory without a
    finish result, or whose episode ran another task than its row names, scores 0.
    """
    result = finish_result((extra_info or {}).get(FINISH_FIELD))
    if result is None:
        return {"score": 0.0, "success": 0.0, "format_error": 0.0, "finished": 0.0, "task_matches": 0.0}
    matches = not ground_truth or result.get("task_id") == ground_truth
    return {
        "score": float(result["reward"]) if matches else 0.0,
        "success": 1.0 if matches and result.get("success") else 0.0,
        "format_error": 1.0 if result.get("format_error") else 0.0,
        "finished": 1.0,
        "task_matches": 1.0 if matches else 0.0,
    }


def final_answer(text):
    """The answer in an act's text: inside <answer>..</answer> (our layout), else the whole text."""
    if "<tool_call>" in text:
        return None
    found = ANSWER.search(text)
    answer = (found.group(1) if found else text).strip()
    return answer or None


def without_episode_id(schema):
    """A tool schema as the model should see it: the agent loop fills episode_id itself."""
    schema = json.loads(json.dumps(schema))
    parameters = schema.get("function", {}).get("parameters", {})
    parameters.get("properties", {}).pop(EPISODE_ID, None)
    if isinstance(parameters.get("required"), list):
        parameters["required"] = [p for p in parameters["required"] if p != EPISODE_ID]
    return schema


def _fastmcp_client(config):
    from fastmcp import Client

    return Client(config)


class EpisodeClient:
    """envace mcp serve as the agent loop reaches it: one fastmcp client per event loop, its session held open.

    verl's ClientManager keeps one client for all event loops (its tool listing runs in a temporary loop
    it then closes) and opens a session per call: over stdio that fails (Event loop is closed) or, with
    keep_alive false, starts a new server per call, which holds none of the episode. Held open per loop,
    one server serves all of a loop's episodes whatever keep_alive says. A session that broke (the HTTP
    server evicted it, a connection dropped) is reopened once and the call sent again: the episode id
    outlives sessions, so the episode goes on (over stdio a new server has none, and says so).
    """

    def __init__(self, servers_file=None, client_factory=None, timeout_s=None):
        self.servers_file = servers_file or SERVERS_FILE
        self.timeout_s = timeout_s or CALL_TIMEOUT_S
        self._factory = client_factory or _fastmcp_client
        self._guard = threading.Lock()
        self._by_loop = {}  # id(loop) -> [loop, client or None, asyncio.Lock]

    def _entry(self):
        loop = asyncio.get_running_loop()
        with self._guard:
            for key, entry in list(self._by_loop.items()):
                if entry[0].is_closed():  # verl's temporary loops: their clients died with them
                    del self._by_loop[key]
            entry = self._by_loop.get(id(loop))
            if entry is None or entry[0] is not loop:
                entry = self._by_loop[id(loop)] = [loop, None, asyncio.Lock()]
            return entry

    async def _client(self, stale=None):
        entry = self._entry()
        async with entry[2]:
            if entry[1] is not None and entry[1] is not stale:
                return entry[1]
            with open(self.servers_file) as f:
                config = json.load(f)
            client = self._factory(config)
            await asyncio.wait_for(client.__aenter__(), self.timeout_s)
            entry[1] = client
            return client

    async def call(self, name, arguments):
        """One tool call; returns (text, is_error). A result the server marks isError is returned, not raised."""
        client = await self._client()
        try:
            result = await asyncio.wait_for(client.call_tool_mcp(name, arguments), self.timeout_s)
        except asyncio.TimeoutError:
            raise
        except Exception:
            client = await self._client(stale=client)
            result = await asyncio.wait_for(client.call_tool_mcp(name, arguments), self.timeout_s)
        text = " ".join(part.text for part in result.content if getattr(part, "type", None) == "text")
        return text, bool(getattr(result, "isError", False))

    async def episode_call(self, name, arguments):
        """An episode tool (start_task, finish): its JSON result, or RuntimeError with the server's words."""
        text, is_error = await self.call(name, arguments)
        if is_error:
            raise RuntimeError(f"envace {name} failed: {text}")
        return json.loads(text)


EPISODES = EpisodeClient()
_LISTING_LOCK = threading.Lock()
_LISTED = {}


def _listed_once(initialize):
    """verl's tool listing, once per tool config in this process: each later listing would run in a new
    temporary loop over a client whose connection died with the first (it never returns over stdio)."""

    def listing(path):
        if path not in _LISTED:
            _LISTED[path] = initialize(path)
        return _LISTED[path]

    return listing


try:  # verl and fastmcp are needed to train, not to score
    import fastmcp  # noqa: F401  (the client EpisodeClient makes)
    from verl.experimental.agent_loop import tool_agent_loop as _tool_agent_loop
    from verl.experimental.agent_loop.agent_loop import register
    from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
    from verl.tools.schemas import ToolResponse

    _MISSING = None
except ImportError as error:  # pragma: no cover - exercised where verl is installed
    _MISSING = error


if _MISSING is not None:

    class EnvaceToolAgentLoop:
        """Stands in where verl or fastmcp cannot be imported, so that hydra reports why, not 'cannot locate'."""

        def __init__(self, *args, **kwargs):
            raise ImportError(f"envace_verl.EnvaceToolAgentLoop needs verl and fastmcp in this Python: {_MISSING}") from _MISSING

else:

    @register("envace_tool_agent")
    class EnvaceToolAgentLoop(ToolAgentLoop):
        """ToolAgentLoop with one envace episode per trajectory (verl makes one loop per trajectory)."""

        def __init__(self, *args, **kwargs):
            with _LISTING_LOCK:
                initialize = _tool_agent_loop.initialize_tools_from_config
                _tool_agent_loop.initialize_tools_from_config = _listed_once(initialize)
                try:
                    super().__init__(*args, **kwargs)
                finally:
                    _tool_agent_loop.initialize_tools_from_config = initialize
            # start_task / finish / list_tasks belong to the loop; the model is offered the env's tools only.
            self.tools = {name: tool for name, tool in self.tools.items() if name not in EPISODE_TOOLS}
            # The prompt's system message already lists the tools in the run's own form (its toolSchemas
            # knob), as envace rollouts do; the chat template must not list them a second time.
            self.tool_schemas = []
            self.episode_id = None
            self.finished = None
            self.agent_data = None

        async def run(self, sampling_params, **kwargs):
            info = kwargs.get("extra_info") or {}
            started = await EPISODES.episode_call("start_task", {"task_id": info["task_id"], "seed": int(info.get("seed", 0))})
            self.episode_id = started["episode_id"]
            if started.get("initial_observation"):
                # The env's first observation follows the instruction, as in envace rollouts.
                kwargs = {**kwargs, "raw_prompt": list(kwargs["raw_prompt"]) + [{"role": "tool", "content": started["initial_observation"]}]}
            try:
                output = await super().run(sampling_params, **kwargs)
                if self.finished is None:
                    self.finished = await EPISODES.episode_call("finish", self._finish_arguments(await self._last_act_answer()))
            except Exception:
                if self.finished is None:
                    try:  # close the episode on the server; the error is the one to report
                        await EPISODES.episode_call("finish", {EPISODE_ID: self.episode_id})
                    except Exception:
                        pass
                raise
            output.extra_fields[FINISH_FIELD] = json.dumps(self.finished)
            return output

        def _finish_arguments(self, answer):
            return {EPISODE_ID: self.episode_id, **({"answer": answer} if answer is not None else {})}

        async def _handle_pending_state(self, agent_data, sampling_params):
            self.agent_data = agent_data
            return await super()._handle_pending_state(agent_data, sampling_params)

        async def _last_act_answer(self):
            data = self.agent_data
            if data is None or not data.response_ids:
                return None
            text = await self.loop.run_in_executor(None, lambda: self.tokenizer.decode(data.response_ids, skip_special_tokens=True))
            return final_answer(text)

        async def _call_tool(self, tool_call, tools_kwargs, agent_data):
            # Every call goes to this episode through EPISODES, never through verl's MCPBaseTool (whose
            # client is ClientManager's); an unknown tool or unreadable arguments still reach the env,
            # which records them as the format error they are.
            if tool_call.name in EPISODE_TOOLS:
                return ToolResponse(text=f"Error: unknown tool {tool_call.name}"), 0.0, {}
            try:
                arguments = json.loads(tool_call.arguments)
            except ValueError:
                arguments = None
            if not isinstance(arguments, dict):
                arguments = {}
            text, _ = await EPISODES.call(tool_call.name, {**arguments, EPISODE_ID: self.episode_id})
            return ToolResponse(text=text[: self.max_tool_response_length]), 0.0, {}
`;
