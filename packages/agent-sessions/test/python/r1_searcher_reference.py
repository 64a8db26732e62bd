"""R1-Searcher's reward terms as its reward servers compute them (RUCAIBox/R1-Searcher,
train/reward_server_llama_stage1.py and train/reward_server_llama_stage2.py), written for Fusebox's parity test
from that definition. A session's actions become R1-Searcher's solution the way its rollout builds one: the
prompt ends with "<think>" (so a first action opening with it has that tag already), and after each action that
made a query the documents are inserted as "<|begin_of_documents|>\n(1) ...\n<|end_of_documents|>\n\n".
Reads a JSON list of action lists on stdin; writes, per case, the stage-1 terms (retrieve 0.5 + format 0.5) and
whether stage 2 punishes the format, as a JSON list."""

import json
import re
import sys


def solution_of(actions):
    parts = []
    for index, action in enumerate(actions):
        if index == 0 and action.lstrip().startswith("<think>"):
            action = action.lstrip()[len("<think>"):]
        parts.append(action)
        if re.search(r"<\|begin_of_query\|>.*?<\|end_of_query\|>", action, re.DOTALL):
            parts.append("<|begin_of_documents|>\n(1) a passage\n<|end_of_documents|>\n\n")
    return "".join(parts)


def tag_counts(solution):
    return [
        solution.count("<|begin_of_documents|>\n"),
        solution.count("<|end_of_documents|>\n\n"),
        solution.count("<|begin_of_query|>"),
        solution.count("<|end_of_query|>"),
        solution.count("<|begin_of_documents|>"),
        solution.count("<|end_of_documents|>"),
        solution.count("<|begin_of_documents|>\n(1)"),
    ]


def stage1_terms(solution):
    terms = 0.0
    counts = tag_counts(solution)
    if len(set(counts)) == 1 and counts[0] >= 1:
        terms += 0.5
    if (
        solution.count("<think>") == 0
        and solution.count("</think>") == solution.count("<answer>") == solution.count("</answer>") == 1
    ):
        terms += 0.5
    return terms


def stage2_punished(solution):
    punished = len(set(tag_counts(solution))) != 1
    if not (
        solution.count("<think>") == 0
        and solution.count("</think>") == solution.count("<answer>") == solution.count("</answer>") == 1
    ):
        punished = True
    outside = re.sub(r"<\|begin_of_documents\|>.*?<\|end_of_documents\|>", "", solution, flags=re.DOTALL)
    if any("\u4e00" <= char <= "\u9fff" for char in outside):
        punished = True
    return punished


cases = json.load(sys.stdin)
print(json.dumps([[stage1_terms(solution_of(c)), stage2_punished(solution_of(c))] for c in cases]))
