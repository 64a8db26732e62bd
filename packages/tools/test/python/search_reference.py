"""The tool message verl's SearchTool gives for a retrieval service's answer (verl/tools/utils/
search_r1_like_utils.py: `_passages2string` per query, "\n---\n" between queries, `json.dumps({"result": ...},
ensure_ascii=False)`), written for Fusebox's parity test from that definition, in Python so that Python's own
str.split and str.strip decide the edge cases. Reads a JSON list of `result` lists on stdin, writes the texts as
a JSON list."""

import json
import sys


def passages(retrieval):
    reference = ""
    for index, item in enumerate(retrieval):
        content = item["document"]["contents"]
        title = content.split("\n")[0]
        text = "\n".join(content.split("\n")[1:])
        reference += f"Doc {index + 1} (Title: {title})\n{text}\n\n"
    return reference.strip()


def message(results):
    if not results:
        return json.dumps({"result": "No search results found."}, ensure_ascii=False)
    return json.dumps({"result": "\n---\n".join(passages(r) for r in results)}, ensure_ascii=False)


print(json.dumps([message(results) for results in json.load(sys.stdin)]))
