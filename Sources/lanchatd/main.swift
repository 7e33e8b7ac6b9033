print("lanchatd")
