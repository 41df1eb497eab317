# bad_input: egg-cc on bad input gives nvcc's answer or one clear message.
