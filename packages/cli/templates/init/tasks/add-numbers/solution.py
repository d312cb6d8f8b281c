"""An example deliverable for tasks/add-numbers/task.json: the function the task's `entrypoint` names."""


def add(a, b):
    return a + b
