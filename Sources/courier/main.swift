import Courier
print("courier")
