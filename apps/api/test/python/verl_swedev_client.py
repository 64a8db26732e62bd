"""verl's swedev session client, as seed 003 quotes it, pointed at Fusebox.

The four calls keep verl's payloads and timeouts: /start_instance with {"instance_hash": instance_id.item()} and
timeout=600, /process_action with {"sid", "content"} and no timeout, /postprocess with {"sid"} and timeout=600,
/compute_reward with {"sid": sid.item()} and ClientTimeout(total=300), scored by calc_reward. Only the base URL
changes. Two slips of the quoted code are not reproduced, since they would skip the calls under test: swe_dev_obs
forgets to await call_observation_api, and swe_dev_end hands the coroutine call_postprocess_api to
asyncio.to_thread, which never runs it.

Usage: verl_swedev_client.py BASE_URL EPISODES_JSON. Each episode is {"instance_id": int, "actions": [str]};
prints one JSON line per episode with the sid, the observations and the reward.
"""

import asyncio
import json
import sys

import aiohttp

BASE_URL = sys.argv[1]


def get_api(type):
    assert type in ["reward", "action", "start", "postprocess"]
    path = {"reward": "compute_reward", "action": "process_action", "start": "start_instance", "postprocess": "postprocess"}
    return f"{BASE_URL}/{path[type]}"


async def initialize_runtime(instance_id):
    payload = {"instance_hash": instance_id}
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(get_api(type="start"), json=payload, timeout=600) as response:
                return await response.json()
    except Exception as e:
        print(f"Initializing - API call failed: {e}", file=sys.stderr)
        return None


async def call_observation_api(sid, text):
    payload = {"sid": sid, "content": text}
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(get_api(type="action"), json=payload) as response:
                return await response.json()
    except Exception as e:
        print(f"Observation - API call failed: {e}", file=sys.stderr)
        return None


async def call_postprocess_api(sid):
    payload = {"sid": sid}
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(get_api(type="postprocess"), json=payload, timeout=600) as response:
                return await response.json()
    except Exception as e:
        print(f"Postprocess - API call failed: {e}", file=sys.stderr)
        return None


def calc_reward(reward_json):
    if "reward" in reward_json:
        return reward_json["reward"]
    try:
        return reward_json["f2p_count"] / reward_json["f2p_total"]
    except Exception:
        return 0.0


async def fetch_reward(sid, session):
    """SWEDevRewardManager.fetch_reward: `sid` is the int64 that verl kept in its batch."""
    try:
        payload = {"sid": sid}
        async with session.post(get_api(type="reward"), json=payload, timeout=aiohttp.ClientTimeout(total=300)) as response:
            if response.status == 200:
                return float(calc_reward(await response.json()))
            print(f"fetch_reward - API request failed with status {response.status} for sid: {sid}", file=sys.stderr)
            return 0.0
    except Exception as e:
        print(f"fetch_reward - Error fetching reward for sid {sid}: {e}", file=sys.stderr)
        return 0.0


def is_stop(action):
    return "<function=finish>" in action


async def episode(instance_id, actions):
    # swedev_start: the sid string, and int(sid) as the obs metric gathered into the int64 batch.
    result = await initialize_runtime(instance_id)
    sid, sids = result["sid"], int(result["sid"])
    observations = []
    for index, action in enumerate(actions):
        if is_stop(action):
            break
        # The first action passes the sid as the string from /start_instance, later ones as sid.item().
        obs_result = await call_observation_api(sid if index == 0 else sids, action)
        try:
            observations.append(obs_result["content"])
        except Exception:
            observations.append("Error")
    postprocessed = await call_postprocess_api(sids)
    return sids, observations, postprocessed


async def main():
    episodes = json.loads(sys.argv[2])
    # Rollouts run concurrently, as AsyncRollout does.
    rollouts = await asyncio.gather(*(episode(e["instance_id"], e["actions"]) for e in episodes))
    # The reward manager runs after the whole batch, one aiohttp session for all.
    async with aiohttp.ClientSession() as session:
        rewards = await asyncio.gather(*(fetch_reward(sids, session) for sids, _, _ in rollouts))
    for (sids, observations, postprocessed), reward in zip(rollouts, rewards):
        print(json.dumps({"sid": sids, "observations": observations, "postprocess": postprocessed, "reward": reward}))


asyncio.run(main())
