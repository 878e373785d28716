import Courier
import CourierTestServer
print(CourierVersion.string)
