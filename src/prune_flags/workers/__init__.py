"""Where rewrites run: the warm child process, pools, and the tasks they are sent."""
