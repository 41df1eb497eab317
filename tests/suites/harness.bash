# harness: egg eval
