print("lanchat")
