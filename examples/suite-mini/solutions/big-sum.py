def big_sum(numbers):
    return sum(numbers)
