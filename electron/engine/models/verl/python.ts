// envace_verl.py, the Python side of a verl export: an agent loop over verl's ToolAgentLoop that opens
// one `envace mcp serve` episode per trajectory and closes it with `finish`, and the reward function
// that scores a trajectory by that `finish` result. The reward function must import without verl
// (it is tested with a bare python3), so every verl import is guarded.

export const PYTHON_MODULE = 'envace_verl';

export const ENVACE_VERL_PY = String.raw`"""EnvACE environments in verl's multi-turn agent loop (written by envace export --format verl).

One trajectory is one episode of envace mcp serve:
  start_task(task_id, seed)  when the trajectory starts (ids from the dataset row's extra_info);
  the env's own tools        for every tool call the model makes (this episode's id added);
  finish(answer)             when the trajectory ends (the last act's text, if it made no call).
The finish result (checklist reward, end-state check) travels in the agent loop's extra fields to
compute_score, the reward function, which needs nothing but the standard library.
"""

import json
import re

EPISODE_TOOLS = ("start_task", "finish", "list_tasks")
EPISODE_ID = "episode_id"
FINISH_FIELD = "envace_finish"
ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S)
REWARD_KEYS = ("score", "success", "format_error", "finished", "task_matches")


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


try:  # verl is needed to train, not to score
    from verl.experimental.agent_loop.agent_loop import register
    from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
    from verl.experimental.agent_loop.tool_parser import FunctionCall
    from verl.tools.schemas import ToolResponse
    from verl.tools.utils.mcp_clients.McpClientManager import ClientManager
except ImportError:  # pragma: no cover - exercised where verl is installed
    ToolAgentLoop = None


if ToolAgentLoop is not None:

    @register("envace_tool_agent")
    class EnvaceToolAgentLoop(ToolAgentLoop):
        """ToolAgentLoop with one envace episode per trajectory (verl makes one loop per trajectory)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            # start_task / finish / list_tasks belong to the loop; the model is offered the env's tools only.
            for name in EPISODE_TOOLS:
                self.tools.pop(name, None)
            # The prompt's system message already lists the tools in the run's own form (its toolSchemas
            # knob), as envace rollouts do; the chat template must not list them a second time.
            self.tool_schemas = []
            self.episode_id = None
            self.finished = None
            self.agent_data = None

        async def _episode_call(self, name, arguments):
            # Every tool comes from the one server; reach it through the client that serves finish.
            client = ClientManager.get_client_with_tool_name("finish")
            async with client:
                result = await client.call_tool_mcp(name, arguments)
            text = " ".join(part.text for part in result.content if getattr(part, "type", None) == "text")
            if getattr(result, "isError", False):
                raise RuntimeError(f"envace {name} failed: {text}")
            return json.loads(text)

        async def run(self, sampling_params, **kwargs):
            info = kwargs.get("extra_info") or {}
            started = await self._episode_call("start_task", {"task_id": info["task_id"], "seed": int(info.get("seed", 0))})
            self.episode_id = started["episode_id"]
            if started.get("initial_observation"):
                # The env's first observation follows the instruction, as in envace rollouts.
                kwargs = {**kwargs, "raw_prompt": list(kwargs["raw_prompt"]) + [{"role": "tool", "content": started["initial_observation"]}]}
            try:
                output = await super().run(sampling_params, **kwargs)
                if self.finished is None:
                    self.finished = await self._episode_call("finish", self._finish_arguments(await self._last_act_answer()))
            except Exception:
                if self.finished is None:
                    try:  # close the episode on the server; the error is the one to report
                        await self._episode_call("finish", {EPISODE_ID: self.episode_id})
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
            if tool_call.name in EPISODE_TOOLS:
                return ToolResponse(text=f"Error: unknown tool {tool_call.name}"), 0.0, {}
            try:
                arguments = json.loads(tool_call.arguments)
            except ValueError:
                arguments = None
            if isinstance(arguments, dict):
                tool_call = FunctionCall(name=tool_call.name, arguments=json.dumps({**arguments, EPISODE_ID: self.episode_id}, ensure_ascii=False))
            if tool_call.name not in self.tools:
                # An unknown tool still goes to the env, which records it as the format error it is.
                client = ClientManager.get_client_with_tool_name("finish")
                async with client:
                    result = await client.call_tool_mcp(tool_call.name, json.loads(tool_call.arguments) if isinstance(arguments, dict) else {EPISODE_ID: self.episode_id})
                text = " ".join(part.text for part in result.content if getattr(part, "type", None) == "text")
                return ToolResponse(text=text[: self.max_tool_response_length]), 0.0, {}
            return await super()._call_tool(tool_call, tools_kwargs, agent_data)
`;
